package org.rdmalab.bench;

import java.time.Duration;
import java.util.Map;
import org.rdmalab.control.ConnectionData;

/**
 * How the two sides of a run meet outside RDMA: they swap connection data once, then meet at named
 * points (before and after each size and each baseline) so neither side runs ahead. Both sides must
 * name the same points in the same order; a mismatch means they were started with different
 * options and ends the run with a message saying so.
 */
interface Rendezvous extends AutoCloseable {

    /** Sends this side's connection data and returns the peer's. */
    ConnectionData exchange(ConnectionData local, Duration timeout) throws BenchException;

    /** Waits until the peer reaches the point called {@code name}, at most {@code timeout}. */
    void sync(String name, Duration timeout) throws BenchException;

    /**
     * Sends named values and returns the peer's (the client's bandwidth row for the server to
     * print, as perftest's {@code xchg_bw_reports}), waiting at most {@code timeout}.
     */
    Map<String, String> swap(Map<String, String> local, Duration timeout) throws BenchException;

    /** The peer's IPv4 address, for the baseline's datagrams. */
    String peerAddress();

    /** perftest's "Data ex. method": {@code Ethernet} over TCP, {@code in process} in a loopback run. */
    String method();

    /**
     * True when the peer's side has closed the connection (it ended, or was stopped), looking for a
     * moment at most; false while it is there, and in one process.
     */
    default boolean peerClosed() {
        return false;
    }

    /** Releases the connection; unblocks a side waiting in {@link #sync}. Idempotent. */
    @Override
    void close();
}
