package org.rdmalab.softroce;

import java.util.ArrayList;
import java.util.List;
import org.rdmalab.softroce.net.EventLoop;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.CompletionChannel;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.ResourceNode;

/**
 * {@code struct ibv_cq}: a bounded queue of completions, filled by the transport thread and
 * polled by any thread. A completion that finds the queue full overflows it: the completion is
 * lost, the QP that produced it goes to ERR and every later poll, once the queue is drained,
 * fails with EOVERFLOW, so an overflow is never silent.
 *
 * <p>The completions wait in a ring of plain arrays, one per {@code ibv_wc} field, rather than as
 * {@link WorkCompletion} records: the transport adds one field by field and
 * {@link #poll(CompletionBuffer)} copies them out field by field, so in steady state neither
 * allocates (issue 8). {@link #poll(int)} builds the records its list returns. The ring starts
 * small and doubles, up to the capacity, the first times it holds more; a CQ that is polled as it
 * fills never grows.
 *
 * <p>Threads: {@link #push} on the transport loop, the polls on any thread; the ring is guarded by
 * this object's monitor.
 */
final class SoftCompletionQueue extends ResourceNode implements CompletionQueue {

    private final SoftRoceContext context;
    private final int capacity;
    private final SoftCompletionChannel channel;
    private final int handle;
    /** The ring's first size (or the capacity, when smaller). */
    private static final int INITIAL_SLOTS = 64;
    private long[] wrIds;
    private WcStatus[] statuses;
    private WcOpcode[] opcodes;
    private int[] vendorErrors;
    private int[] byteLengths;
    private int[] immData;
    private int[] qpNums;
    private int[] srcQps;
    private int[] wcFlags;
    /** Slot of the oldest completion. */
    private int head;
    /** Completions waiting. */
    private int size;
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
        allocate(Math.max(1, Math.min(capacity, INITIAL_SLOTS)));
    }

    private void allocate(int slots) {
        wrIds = new long[slots];
        statuses = new WcStatus[slots];
        opcodes = new WcOpcode[slots];
        vendorErrors = new int[slots];
        byteLengths = new int[slots];
        immData = new int[slots];
        qpNums = new int[slots];
        srcQps = new int[slots];
        wcFlags = new int[slots];
    }

    /** Doubles the ring (at most to the capacity), the waiting completions first in the new arrays. */
    private void grow() {
        long[] oldWrIds = wrIds;
        WcStatus[] oldStatuses = statuses;
        WcOpcode[] oldOpcodes = opcodes;
        int[] oldVendorErrors = vendorErrors;
        int[] oldByteLengths = byteLengths;
        int[] oldImmData = immData;
        int[] oldQpNums = qpNums;
        int[] oldSrcQps = srcQps;
        int[] oldWcFlags = wcFlags;
        int slots = oldWrIds.length;
        allocate((int) Math.min(capacity, 2L * slots));
        for (int i = 0; i < size; i++) {
            int from = (head + i) % slots;
            wrIds[i] = oldWrIds[from];
            statuses[i] = oldStatuses[from];
            opcodes[i] = oldOpcodes[from];
            vendorErrors[i] = oldVendorErrors[from];
            byteLengths[i] = oldByteLengths[from];
            immData[i] = oldImmData[from];
            qpNums[i] = oldQpNums[from];
            srcQps[i] = oldSrcQps[from];
            wcFlags[i] = oldWcFlags[from];
        }
        head = 0;
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
        return push(completion.wrId(), completion.status(), completion.opcode(), completion.vendorError(),
                completion.byteLength(), completion.immData(), completion.qpNum(), completion.srcQp(),
                completion.wcFlags(), solicited);
    }

    /** {@link #push(WorkCompletion, boolean)} of an error completion: only wr_id, status, opcode and qp_num set. */
    boolean pushError(long wrId, WcStatus status, WcOpcode opcode, int qpNum) {
        return push(wrId, status, opcode, 0, 0, 0, qpNum, 0, 0, false);
    }

    /**
     * Adds a completion given field by field, as the transport's data path does so that completing
     * allocates nothing (transport thread). Returns false when the queue is full: the caller moves
     * its QP to ERR.
     */
    boolean push(long wrId, WcStatus status, WcOpcode opcode, int vendorError, int byteLength, int immValue,
                 int qpNum, int srcQp, int flags, boolean solicited) {
        boolean notify;
        synchronized (this) {
            if (isClosed()) {
                return true;
            }
            if (size >= capacity) {
                overflowed = true;
                context.count(Counter.CQ_OVERFLOW);
                return false;
            }
            if (size == wrIds.length) {
                grow();
            }
            int slot = (head + size) % wrIds.length;
            wrIds[slot] = wrId;
            statuses[slot] = status;
            opcodes[slot] = opcode;
            vendorErrors[slot] = vendorError;
            byteLengths[slot] = byteLength;
            immData[slot] = immValue;
            qpNums[slot] = qpNum;
            srcQps[slot] = srcQp;
            wcFlags[slot] = flags;
            size++;
            notify = armed && (!solicitedOnly || solicited || status != WcStatus.SUCCESS);
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
            if (size == 0) {
                if (overflowed) {
                    throw overflowFailure();
                }
                return List.of();
            }
            int count = Math.min(maxEntries, size);
            List<WorkCompletion> taken = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int slot = head;
                taken.add(new WorkCompletion(wrIds[slot], statuses[slot], opcodes[slot], vendorErrors[slot],
                        byteLengths[slot], immData[slot], qpNums[slot], srcQps[slot], wcFlags[slot]));
                removeHead();
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
            if (size == 0) {
                if (overflowed) {
                    throw overflowFailure();
                }
                return 0;
            }
            int count = Math.min(into.capacity(), size);
            for (int i = 0; i < count; i++) {
                int slot = head;
                into.add(wrIds[slot], statuses[slot], opcodes[slot], vendorErrors[slot], byteLengths[slot],
                        immData[slot], qpNums[slot], srcQps[slot], wcFlags[slot]);
                removeHead();
            }
            return count;
        }
    }

    /** Frees the oldest slot; under the monitor. */
    private void removeHead() {
        head = (head + 1) % wrIds.length;
        size--;
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
        head = 0;
        size = 0;
    }
}
