package org.rdmalab.softroce;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.CompletionChannel;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.ResourceNode;

/**
 * {@code struct ibv_cq}: a bounded queue of completions, filled by the transport thread and
 * polled by any thread. A completion that finds the queue full overflows it: the completion is
 * lost, the QP that produced it goes to ERR and every later poll, once the queue is drained,
 * fails with EOVERFLOW, so an overflow is never silent.
 */
final class SoftCompletionQueue extends ResourceNode implements CompletionQueue {

    private final SoftRoceContext context;
    private final int capacity;
    private final SoftCompletionChannel channel;
    private final int handle;
    private final ArrayDeque<WorkCompletion> entries = new ArrayDeque<>();
    private boolean armed;
    private boolean solicitedOnly;
    private boolean overflowed;
    private int unackedEvents;
    private volatile EventLoop loop;

    SoftCompletionQueue(SoftRoceContext context, int capacity, SoftCompletionChannel channel, int handle) {
        super(context, Kind.COMPLETION_QUEUE);
        this.context = context;
        this.capacity = capacity;
        this.channel = channel;
        this.handle = handle;
    }

    SoftRoceContext context() {
        return context;
    }

    int handle() {
        return handle;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    /**
     * Adds a completion (transport thread). Returns false when the queue is full: the caller moves
     * its QP to ERR.
     */
    boolean push(WorkCompletion completion, boolean solicited) {
        boolean notify;
        synchronized (this) {
            if (isClosed()) {
                return true;
            }
            if (entries.size() >= capacity) {
                overflowed = true;
                context.count(Counter.CQ_OVERFLOW);
                return false;
            }
            entries.add(completion);
            notify = armed && (!solicitedOnly || solicited || completion.status() != WcStatus.SUCCESS);
            if (notify) {
                armed = false;
            }
        }
        if (notify && channel != null) {
            channel.signal(this);
        }
        return true;
    }

    synchronized boolean overflowed() {
        return overflowed;
    }

    /**
     * {@code ibv_poll_cq}; EOVERFLOW once an overflowed CQ is drained. A poll that finds the queue
     * empty lends the calling thread to the device for one turn ({@link EventLoop#progress}), so a
     * busy-polling thread reads the completions' packets itself, then looks again.
     */
    @Override
    public List<WorkCompletion> poll(int maxEntries) throws VerbsException {
        ensureOpen();
        if (maxEntries < 0) {
            throw new IllegalArgumentException("maxEntries " + maxEntries + " is negative");
        }
        List<WorkCompletion> taken = take(maxEntries);
        if (taken.isEmpty() && maxEntries > 0) {
            EventLoop loop = loop();
            if (loop != null && loop.progress()) {
                taken = take(maxEntries);
            }
        }
        return taken;
    }

    /** The device's loop once its transport runs, else null. */
    private EventLoop loop() {
        EventLoop known = loop;
        if (known == null) {
            SoftTransport transport = context.transportIfStarted();
            if (transport != null) {
                known = transport.loop();
                loop = known;
            }
        }
        return known;
    }

    private List<WorkCompletion> take(int maxEntries) throws VerbsException {
        synchronized (this) {
            if (entries.isEmpty()) {
                if (overflowed) {
                    throw overflowFailure();
                }
                return List.of();
            }
            int count = Math.min(maxEntries, entries.size());
            List<WorkCompletion> taken = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                taken.add(entries.poll());
            }
            return taken;
        }
    }

    /**
     * {@code ibv_poll_cq} into the caller's buffer: the same completions, turn and EOVERFLOW as
     * {@link #poll(int)} with the buffer's capacity, copied into the buffer instead of a new list.
     */
    @Override
    public int poll(CompletionBuffer into) throws VerbsException {
        ensureOpen();
        into.clear();
        int taken = take(into);
        if (taken == 0) {
            EventLoop loop = loop();
            if (loop != null && loop.progress()) {
                taken = take(into);
            }
        }
        return taken;
    }

    private int take(CompletionBuffer into) throws VerbsException {
        synchronized (this) {
            if (entries.isEmpty()) {
                if (overflowed) {
                    throw overflowFailure();
                }
                return 0;
            }
            int count = Math.min(into.capacity(), entries.size());
            for (int i = 0; i < count; i++) {
                into.add(entries.poll());
            }
            return count;
        }
    }

    private VerbsException overflowFailure() {
        return new VerbsException("ibv_poll_cq", Errno.EOVERFLOW, "the CQ overflowed: a completion found all "
                + capacity + " entries full and was lost, and its QP went to ERR (make the CQ larger or "
                + "poll more often)");
    }

    /** {@code ibv_req_notify_cq}; as in C, arming a CQ without a channel succeeds and signals nothing. */
    @Override
    public void requestNotify(boolean solicitedOnly) {
        ensureOpen();
        synchronized (this) {
            this.armed = true;
            this.solicitedOnly = solicitedOnly;
        }
    }

    synchronized void eventDelivered() {
        unackedEvents++;
    }

    /** {@code ibv_ack_cq_events}. */
    @Override
    public synchronized void ackEvents(int count) {
        if (count < 0 || count > unackedEvents) {
            throw new IllegalArgumentException("acking " + count + " events but " + unackedEvents + " are unacknowledged");
        }
        unackedEvents -= count;
    }

    @Override
    protected synchronized void destroy() {
        entries.clear();
    }
}
