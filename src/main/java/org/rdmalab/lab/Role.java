package org.rdmalab.lab;

/** Which side of the seed's program a session plays: the server waits, the client connects. */
public enum Role {
    SERVER, CLIENT
}
