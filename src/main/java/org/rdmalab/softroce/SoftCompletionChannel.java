package org.rdmalab.softroce;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.rdmalab.verbs.CompletionChannel;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.ResourceNode;

/** {@code struct ibv_comp_channel}: a queue of CQ events; any thread may wait on it. */
final class SoftCompletionChannel extends ResourceNode implements CompletionChannel {

    private final SoftRoceContext context;
    private final LinkedBlockingQueue<SoftCompletionQueue> events = new LinkedBlockingQueue<>();

    SoftCompletionChannel(SoftRoceContext context) {
        super(context, Kind.COMPLETION_CHANNEL);
        this.context = context;
    }

    SoftRoceContext context() {
        return context;
    }

    void signal(SoftCompletionQueue cq) {
        events.add(cq);
    }

    /** {@code ibv_get_cq_event}: ETIMEDOUT when no armed CQ completed within {@code timeout}. */
    @Override
    public CompletionQueue getEvent(Duration timeout) throws VerbsException {
        ensureOpen();
        try {
            SoftCompletionQueue cq = events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (cq == null) {
                throw new VerbsException("ibv_get_cq_event", Errno.ETIMEDOUT, "no completion event within "
                        + timeout.toMillis() + " ms (was the CQ armed with ibv_req_notify_cq?)");
            }
            cq.eventDelivered();
            return cq;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException("ibv_get_cq_event", Errno.EINTR, "interrupted while waiting for a CQ event");
        }
    }

    @Override
    protected void destroy() {
        events.clear();
    }
}
