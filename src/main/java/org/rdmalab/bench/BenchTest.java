package org.rdmalab.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The verb a benchmark measures, named as perftest names it ({@code ib_write_bw} is {@link #WRITE}). */
public enum BenchTest {
    SEND("send", "Send"),
    WRITE("write", "RDMA_Write"),
    READ("read", "RDMA_Read"),
    ATOMIC("atomic", "Atomic");

    /** Bytes an atomic operation moves: one 64-bit word. */
    public static final int ATOMIC_SIZE = 8;

    private final String cliName;
    private final String perftestName;

    BenchTest(String cliName, String perftestName) {
        this.cliName = cliName;
        this.perftestName = perftestName;
    }

    /** {@code write}, as the command line spells it. */
    public String cliName() {
        return cliName;
    }

    /** {@code RDMA_Write}, as perftest prints it in its title and JSON. */
    public String perftestName() {
        return perftestName;
    }

    /**
     * True when one latency sample is a full round trip (READ and atomics: the request goes out and
     * the data comes back); false when it is half a ping-pong round trip (WRITE and SEND).
     */
    public boolean fullRoundTrip() {
        return this == READ || this == ATOMIC;
    }

    /** The perftest program this test stands for: {@code ib_write_bw}, {@code ib_read_lat}. */
    public String perftestProgram(BenchMode mode) {
        return "ib_" + cliName + (mode == BenchMode.BW ? "_bw" : "_lat");
    }

    /** The test called {@code text} on the command line (case ignored). */
    public static BenchTest parse(String text) {
        for (BenchTest test : values()) {
            if (test.cliName.equals(text.trim().toLowerCase(Locale.ROOT))) {
                return test;
            }
        }
        throw new IllegalArgumentException("unknown test '" + text + "'; choose one of "
                + Arrays.stream(values()).map(BenchTest::cliName).collect(Collectors.joining(", ")));
    }
}
