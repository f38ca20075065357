package org.rdmalab.control;

import java.time.Duration;
import java.util.Objects;

/**
 * How long each blocking step of a control exchange may take.
 *
 * @param connect how long a client keeps trying to reach the server (it retries while the server is
 *     not listening yet)
 * @param accept how long a server waits for its one client
 * @param read how long one read (a block, a frame, a sync byte) may wait for the peer
 */
public record Timeouts(Duration connect, Duration accept, Duration read) {

    /** 30 s to connect, 30 s to accept, 10 s per read. */
    public static final Timeouts DEFAULT = new Timeouts(Duration.ofSeconds(30), Duration.ofSeconds(30),
            Duration.ofSeconds(10));

    /** Checks that every timeout is positive and at most a day (socket timeouts are ints of ms). */
    public Timeouts {
        check(connect, "connect");
        check(accept, "accept");
        check(read, "read");
    }

    static void check(Duration value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero() || value.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("the " + name + " timeout must be between 1 ms and 1 day, not "
                    + value);
        }
    }

    /** The same timeouts with all three set to {@code each} (handy in tests). */
    public static Timeouts all(Duration each) {
        return new Timeouts(each, each, each);
    }

    /** A copy with another connect timeout. */
    public Timeouts withConnect(Duration value) {
        return new Timeouts(value, accept, read);
    }

    /** A copy with another accept timeout. */
    public Timeouts withAccept(Duration value) {
        return new Timeouts(connect, value, read);
    }

    /** A copy with another read timeout. */
    public Timeouts withRead(Duration value) {
        return new Timeouts(connect, accept, value);
    }
}
