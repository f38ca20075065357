package org.rdmalab.softroce;

import org.rdmalab.softroce.net.EventLoop;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.WorkCompletion;

/**
 * What the three protocol parts of a queue pair share: its identity, its completion queues and
 * the attributes {@code ibv_modify_qp} applied (rxe keeps these in {@code qp->attr} and the fields
 * {@code rxe_qp_from_attr} fills in {@code rxe_qp.c}).
 *
 * <p>Threads: written by {@link SoftQueuePair#apply} on the transport loop and read there by the
 * {@link Requester}, {@link Completer} and {@link Responder}; {@link #state} is volatile because
 * callers read it for their checks.
 */
final class QpConfig {

    final SoftQueuePair qp;
    final SoftRoceContext context;
    final SoftProtectionDomain pd;
    final SoftTransport transport;
    final EventLoop loop;
    final int qpn;
    final QpType type;
    final SoftCompletionQueue sendCq;
    final SoftCompletionQueue recvCq;

    volatile QpState state = QpState.RESET;
    /**
     * Held by a post while it checks the state, takes its queue slot and fills it, and by a reset
     * while it empties the queues and frees every slot: a post is either wholly before a reset (the
     * reset drops it, also when the loop has not taken it in yet, as rxe's reset empties the queue
     * it was in: {@code rxe_qp_reset}) or wholly after it.
     */
    final Object postLock = new Object();

    int peerIp;
    int destQpn;
    int mtu = 1024;
    int trafficClass;
    int hopLimit = 64;
    int qpAccess;
    long ackTimeoutNanos;
    int retryCount;
    int rnrRetry;
    int minRnrTimer;
    int maxRdAtomic;
    int maxDestRdAtomic;

    QpConfig(SoftQueuePair qp, SoftProtectionDomain pd, SoftTransport transport, int qpn, QpType type,
             SoftCompletionQueue sendCq, SoftCompletionQueue recvCq) {
        this.qp = qp;
        this.pd = pd;
        this.context = pd.softContext();
        this.transport = transport;
        this.loop = transport.loop();
        this.qpn = qpn;
        this.type = type;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
    }

    /** Sends the packet encoded in the transport's buffer to the connected peer ({@code rxe_xmit_packet}). */
    void transmit() {
        transport.transmit(peerIp, trafficClass, hopLimit);
    }

    void count(Counter counter) {
        transport.count(counter);
    }

    /** The QP goes to ERR and every outstanding work request is flushed ({@code rxe_qp_error}). */
    void enterError() {
        qp.enterError(null, null);
    }

    /**
     * The QP goes to ERR, then {@code cause} enters {@code cq}, then the flushes follow: whoever
     * polls the error completion and then queries the QP finds it in ERR, as with rxe.
     */
    void enterError(SoftCompletionQueue cq, WorkCompletion cause) {
        qp.enterError(cq, cause);
    }

    boolean closed() {
        return qp.isClosed();
    }
}
