package org.rdmalab.bench;

/**
 * The other side is gone: it closed the control connection while this side waited for it, or its
 * packets stopped coming for {@link RdmaTraffic#STALL_NANOS} (it was stopped, or it failed and says
 * why on its own side, or the network between them broke). Ends a {@code --run_infinitely} run
 * as stopped once an interval has run; in any other run it is a failure like the rest.
 */
final class PeerGone extends BenchException {

    private static final long serialVersionUID = 1L;

    PeerGone(String message) {
        super(message);
    }

    PeerGone(String message, Throwable cause) {
        super(message, cause);
    }
}
