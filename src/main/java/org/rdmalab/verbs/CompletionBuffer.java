package org.rdmalab.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A caller-owned array of completions for {@link CompletionQueue#poll(CompletionBuffer)}, as C's
 * {@code struct ibv_wc wc[n]} is for {@code ibv_poll_cq(cq, n, wc)}: made once, refilled by every
 * poll, so a polling loop allocates nothing per completion. Each poll replaces the contents;
 * {@link #size()} says how many entries the last poll filled, and the accessors read entry
 * {@code i} field by field ({@code wrId(i)}, {@code status(i)}, ...). {@link #get(int)} and
 * {@link #toList()} copy entries out as {@link WorkCompletion} records when a loop wants to keep them.
 *
 * <p>Not thread-safe: one thread polls into a buffer and reads it, as with C's array on the
 * caller's stack. {@link #clear()} and {@link #add} are how a backend fills it; a caller has no
 * need of them.
 */
public final class CompletionBuffer {

    /*
     * One array, STRIDE longs per entry: wr_id; status and opcode; vendor_err and byte_len;
     * imm_data and qp_num; src_qp and wc_flags (the first of each pair in the low 32 bits). A
     * poll's stores then go to one array with one bounds check, where an array per field cost a
     * load and a check per field (and registers to hold them) on every poll. Statuses and opcodes
     * are kept as their verbs.h numbers: a reference stored into an array costs the garbage
     * collector's write barrier, a long store nothing.
     */
    private static final int STRIDE = 5;
    private final long[] entries;
    private final int capacity;
    private int size;

    /**
     * A buffer for at most {@code capacity} completions per poll (C's {@code num_entries}).
     *
     * @throws IllegalArgumentException when {@code capacity} is below 1
     */
    public CompletionBuffer(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a completion buffer holds at least one entry, not " + capacity);
        }
        this.capacity = capacity;
        entries = new long[Math.multiplyExact(capacity, STRIDE)];
    }

    /** The most completions one poll takes into this buffer. */
    public int capacity() {
        return capacity;
    }

    /** How many entries the last poll filled (0 when it found none). */
    public int size() {
        return size;
    }

    /** True when the last poll found no completion. */
    public boolean isEmpty() {
        return size == 0;
    }

    /** Entry {@code i}'s {@code wr_id}. */
    public long wrId(int i) {
        return entries[at(i)];
    }

    /** Entry {@code i}'s status. */
    public WcStatus status(int i) {
        return WcStatus.of(low(entries[at(i) + 1]));
    }

    /** True when entry {@code i}'s status is {@link WcStatus#SUCCESS}. */
    public boolean isSuccess(int i) {
        return low(entries[at(i) + 1]) == WcStatus.SUCCESS.value();
    }

    /** Entry {@code i}'s opcode (undefined in an error completion, as in verbs). */
    public WcOpcode opcode(int i) {
        return WcOpcode.of(high(entries[at(i) + 1]));
    }

    /** Entry {@code i}'s {@code vendor_err}. */
    public int vendorError(int i) {
        return low(entries[at(i) + 2]);
    }

    /** Entry {@code i}'s {@code byte_len}. */
    public int byteLength(int i) {
        return high(entries[at(i) + 2]);
    }

    /** Entry {@code i}'s immediate data, host order, when {@link WcFlag#WITH_IMM} is set. */
    public int immData(int i) {
        return low(entries[at(i) + 3]);
    }

    /** Entry {@code i}'s local QP number. */
    public int qpNum(int i) {
        return high(entries[at(i) + 3]);
    }

    /** Entry {@code i}'s remote QP number (UD). */
    public int srcQp(int i) {
        return low(entries[at(i) + 4]);
    }

    /** Entry {@code i}'s {@link WcFlag} bits. */
    public int wcFlags(int i) {
        return high(entries[at(i) + 4]);
    }

    /** Entry {@code i} as a record (allocates one). */
    public WorkCompletion get(int i) {
        return new WorkCompletion(wrId(i), status(i), opcode(i), vendorError(i), byteLength(i), immData(i), qpNum(i),
                srcQp(i), wcFlags(i));
    }

    /** The entries of the last poll as records, oldest first. */
    public List<WorkCompletion> toList() {
        List<WorkCompletion> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            list.add(get(i));
        }
        return list;
    }

    /** Empties the buffer; a backend calls it as a poll starts. */
    public void clear() {
        size = 0;
    }

    /**
     * Appends one completion; a backend calls it for each entry a poll takes.
     *
     * @throws IllegalStateException when the buffer is full
     */
    public void add(long wrId, WcStatus status, WcOpcode opcode, int vendorError, int byteLength, int immData,
                    int qpNum, int srcQp, int wcFlags) {
        int i = size;
        long[] entries = this.entries;
        if (i == capacity) {
            throw new IllegalStateException("the completion buffer is full (" + capacity + " entries)");
        }
        int at = i * STRIDE;
        entries[at] = wrId;
        entries[at + 1] = pair(status.value(), opcode.value());
        entries[at + 2] = pair(vendorError, byteLength);
        entries[at + 3] = pair(immData, qpNum);
        entries[at + 4] = pair(srcQp, wcFlags);
        size = i + 1;
    }

    /** Appends {@code completion}'s fields. */
    public void add(WorkCompletion completion) {
        add(completion.wrId(), completion.status(), completion.opcode(), completion.vendorError(),
                completion.byteLength(), completion.immData(), completion.qpNum(), completion.srcQp(),
                completion.wcFlags());
    }

    /** Where entry {@code i} starts in {@link #entries}, after checking that the last poll filled it. */
    private int at(int i) {
        return Objects.checkIndex(i, size) * STRIDE;
    }

    private static long pair(int low, int high) {
        return Integer.toUnsignedLong(low) | (long) high << 32;
    }

    private static int low(long pair) {
        return (int) pair;
    }

    private static int high(long pair) {
        return (int) (pair >>> 32);
    }

    /** "2 of 16: [wr_id 1 IBV_WC_SUCCESS ..., ...]". */
    @Override
    public String toString() {
        return size + " of " + capacity() + ": " + toList();
    }
}
