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

    private final long[] wrIds;
    /*
     * Statuses and opcodes are kept as their verbs.h numbers: a reference stored into an array
     * costs the garbage collector's write barrier (G1's includes a fence), an int store nothing.
     */
    private final int[] statuses;
    private final int[] opcodes;
    private final int[] vendorErrors;
    private final int[] byteLengths;
    private final int[] immData;
    private final int[] qpNums;
    private final int[] srcQps;
    private final int[] wcFlags;
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
        wrIds = new long[capacity];
        statuses = new int[capacity];
        opcodes = new int[capacity];
        vendorErrors = new int[capacity];
        byteLengths = new int[capacity];
        immData = new int[capacity];
        qpNums = new int[capacity];
        srcQps = new int[capacity];
        wcFlags = new int[capacity];
    }

    /** The most completions one poll takes into this buffer. */
    public int capacity() {
        return wrIds.length;
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
        return wrIds[Objects.checkIndex(i, size)];
    }

    /** Entry {@code i}'s status. */
    public WcStatus status(int i) {
        return WcStatus.of(statuses[Objects.checkIndex(i, size)]);
    }

    /** True when entry {@code i}'s status is {@link WcStatus#SUCCESS}. */
    public boolean isSuccess(int i) {
        return statuses[Objects.checkIndex(i, size)] == WcStatus.SUCCESS.value();
    }

    /** Entry {@code i}'s opcode (undefined in an error completion, as in verbs). */
    public WcOpcode opcode(int i) {
        return WcOpcode.of(opcodes[Objects.checkIndex(i, size)]);
    }

    /** Entry {@code i}'s {@code vendor_err}. */
    public int vendorError(int i) {
        return vendorErrors[Objects.checkIndex(i, size)];
    }

    /** Entry {@code i}'s {@code byte_len}. */
    public int byteLength(int i) {
        return byteLengths[Objects.checkIndex(i, size)];
    }

    /** Entry {@code i}'s immediate data, host order, when {@link WcFlag#WITH_IMM} is set. */
    public int immData(int i) {
        return immData[Objects.checkIndex(i, size)];
    }

    /** Entry {@code i}'s local QP number. */
    public int qpNum(int i) {
        return qpNums[Objects.checkIndex(i, size)];
    }

    /** Entry {@code i}'s remote QP number (UD). */
    public int srcQp(int i) {
        return srcQps[Objects.checkIndex(i, size)];
    }

    /** Entry {@code i}'s {@link WcFlag} bits. */
    public int wcFlags(int i) {
        return wcFlags[Objects.checkIndex(i, size)];
    }

    /** Entry {@code i} as a record (allocates one). */
    public WorkCompletion get(int i) {
        Objects.checkIndex(i, size);
        return new WorkCompletion(wrIds[i], WcStatus.of(statuses[i]), WcOpcode.of(opcodes[i]), vendorErrors[i], byteLengths[i], immData[i],
                qpNums[i], srcQps[i], wcFlags[i]);
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
        if (i == wrIds.length) {
            throw new IllegalStateException("the completion buffer is full (" + wrIds.length + " entries)");
        }
        wrIds[i] = wrId;
        statuses[i] = status.value();
        opcodes[i] = opcode.value();
        vendorErrors[i] = vendorError;
        byteLengths[i] = byteLength;
        this.immData[i] = immData;
        qpNums[i] = qpNum;
        srcQps[i] = srcQp;
        this.wcFlags[i] = wcFlags;
        size = i + 1;
    }

    /** Appends {@code completion}'s fields. */
    public void add(WorkCompletion completion) {
        add(completion.wrId(), completion.status(), completion.opcode(), completion.vendorError(),
                completion.byteLength(), completion.immData(), completion.qpNum(), completion.srcQp(),
                completion.wcFlags());
    }

    /** "2 of 16: [wr_id 1 IBV_WC_SUCCESS ..., ...]". */
    @Override
    public String toString() {
        return size + " of " + capacity() + ": " + toList();
    }
}
