package org.rdmalab.lab.scenario;

import org.rdmalab.lab.Flows;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.RcPath;

/**
 * How one side of a scenario builds its resources and connects its QP: the values its lab steps
 * ({@link Flows#rcSide}) are given. {@link #seed(int)} gives the seed demo's values; scenarios
 * change one thing at a time to show what it does.
 *
 * @param bufferLength bytes of the registered buffer
 * @param mrAccess {@code ibv_reg_mr} access flags
 * @param qpAccess {@code qp_access_flags} given at RESET → INIT
 * @param capabilities QP queue sizes
 * @param cqEntries {@code ibv_create_cq} entries
 * @param minRnrTimer RTR's {@code min_rnr_timer} (the seed: 0x12)
 * @param timeout RTS's local ACK timeout exponent (the seed: 0x12, 4.096 µs × 2^18 ≈ 1.07 s)
 * @param retryCount RTS's {@code retry_cnt} (the seed: 6)
 * @param rnrRetry RTS's {@code rnr_retry} (the seed: 0)
 */
public record PeerSetup(int bufferLength, int mrAccess, int qpAccess, QpCapabilities capabilities, int cqEntries,
                        int minRnrTimer, int timeout, int retryCount, int rnrRetry) {

    /** The seed's access flags: LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE. */
    public static final int SEED_ACCESS = AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ,
            AccessFlag.REMOTE_WRITE);

    public PeerSetup {
        if (bufferLength <= 0) {
            throw new IllegalArgumentException("buffer length " + bufferLength + " must be positive");
        }
    }

    /** The seed's peer: {@code length}-byte buffer, one WR each way, a one-entry CQ, seed timers. */
    public static PeerSetup seed(int length) {
        RcPath.Timers seed = RcPath.Timers.SEED;
        return new PeerSetup(length, SEED_ACCESS, SEED_ACCESS, QpCapabilities.seed(), 1, seed.minRnrTimer(),
                seed.timeout(), seed.retryCount(), seed.rnrRetry());
    }

    /** The seed's peer with room for a few outstanding requests (16 WRs, 16 CQ entries). */
    public static PeerSetup roomy(int length) {
        return seed(length).withCapabilities(new QpCapabilities(16, 16, 1, 1, 0), 32);
    }

    public PeerSetup withMrAccess(int flags) {
        return new PeerSetup(bufferLength, flags, qpAccess, capabilities, cqEntries, minRnrTimer, timeout,
                retryCount, rnrRetry);
    }

    public PeerSetup withQpAccess(int flags) {
        return new PeerSetup(bufferLength, mrAccess, flags, capabilities, cqEntries, minRnrTimer, timeout,
                retryCount, rnrRetry);
    }

    public PeerSetup withCapabilities(QpCapabilities caps, int cqe) {
        return new PeerSetup(bufferLength, mrAccess, qpAccess, caps, cqe, minRnrTimer, timeout, retryCount,
                rnrRetry);
    }

    public PeerSetup withRetry(int newTimeout, int newRetryCount) {
        return new PeerSetup(bufferLength, mrAccess, qpAccess, capabilities, cqEntries, minRnrTimer, newTimeout,
                newRetryCount, rnrRetry);
    }

    /** The values as the lab's steps take them. */
    Flows.RcSide side() {
        return new Flows.RcSide(bufferLength, mrAccess, qpAccess, capabilities, cqEntries,
                new RcPath.Timers(minRnrTimer, timeout, retryCount, rnrRetry));
    }
}
