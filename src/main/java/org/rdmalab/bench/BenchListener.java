package org.rdmalab.bench;

/**
 * Hears a run as it goes. Every method is called on one of the run's threads and must return
 * quickly (a GUI hands the value to its own thread); none is called after {@link BenchRun#result()}
 * completes.
 */
public interface BenchListener {

    /** The devices are open and connected: the facts for the header. Called once, before any row. */
    default void started(BenchInfo info) {
    }

    /** Progress, a few times a second while messages move. */
    default void sample(LiveSample sample) {
    }

    /** One size finished on one path (on a server of a server/client run: never; the client measures). */
    default void row(BenchRow row) {
    }

    /** A side-line worth showing ("server: waiting for a client on 0.0.0.0:18515"). */
    default void note(String text) {
    }

    /** A listener that ignores everything. */
    BenchListener NONE = new BenchListener() {
    };
}
