package org.rdmalab.control;

import java.util.Locale;

/** The three exchanges, by the names {@code demo --protocol} uses, with their default TCP ports. */
public enum ControlProtocol {
    /** The seed's packed 34-byte block and one-byte syncs ({@code org.rdmalab.control.seed}). */
    SEED("seed", 12025, "addr, rkey, QPN, LID, GID; PSN 0, length 11, MTU 256 assumed"),
    /** RDMA Lab's framed, versioned protocol ({@code org.rdmalab.control.lab}). */
    LAB("lab", 12025, "every field"),
    /** ibv_rc_pingpong's 52-byte text ({@code org.rdmalab.control.pingpong}). */
    PINGPONG("pingpong", 18515, "LID, QPN, PSN, GID; no remote buffer, length 4096, MTU 1024 assumed");

    private final String cliName;
    private final int defaultPort;
    private final String carries;

    ControlProtocol(String cliName, int defaultPort, String carries) {
        this.cliName = cliName;
        this.defaultPort = defaultPort;
        this.carries = carries;
    }

    /** {@code seed}, {@code lab} or {@code pingpong}. */
    public String cliName() {
        return cliName;
    }

    /** The TCP port the original programs use: 12025 (the seed's), 18515 (ibv_rc_pingpong's). */
    public int defaultPort() {
        return defaultPort;
    }

    /** Which {@link ConnectionData} fields the format carries and what it assumes for the rest. */
    public String carries() {
        return carries;
    }

    /** Parses {@code seed}, {@code lab} or {@code pingpong}, in any case. */
    public static ControlProtocol parse(String text) {
        String wanted = text.trim().toLowerCase(Locale.ROOT);
        for (ControlProtocol protocol : values()) {
            if (protocol.cliName.equals(wanted)) {
                return protocol;
            }
        }
        throw new IllegalArgumentException("unknown protocol '" + text + "'; valid protocols: seed, lab, pingpong");
    }

    @Override
    public String toString() {
        return cliName;
    }
}
