package org.rdmalab.lab.scenario;

import java.util.Locale;

/** Which side of the loopback connection a step belongs to. */
public enum PeerRole {
    /** The passive side: its buffer is the target of the client's RDMA operations. */
    SERVER,
    /** The active side: it posts the RDMA WRITE / READ / SEND requests. */
    CLIENT;

    /** "server" or "client". */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
