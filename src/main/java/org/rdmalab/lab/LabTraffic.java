package org.rdmalab.lab;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlException;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;

/**
 * One side's work requests and completions: the user's traffic after the steps (any send WR,
 * receives, polls, a snapshot of the peer's buffer) and the steps' own posts and polls, each
 * remembered until its completion so that the completion says how long it took and what it did
 * to this side's buffer. Everything it does becomes the session's {@link LabEvent}s.
 *
 * <p>Thread rules: as the session's: the thread that drives it calls these methods, which block
 * up to their timeouts (never the JavaFX thread).
 */
public final class LabTraffic {

    private final LabSession session;
    private final LabResources resources;
    /** Open posts by queue and wr_id, oldest first, for the completions' elapsed time. */
    private final Map<PostKey, ArrayDeque<Posted>> posts = new ConcurrentHashMap<>();

    LabTraffic(LabSession session, LabResources resources) {
        this.session = session;
        this.resources = resources;
    }

    /** Forgets every open post (the session was reset). */
    void clear() {
        posts.clear();
    }

    /** Which queue a post went to, and its wr_id. */
    private record PostKey(boolean receive, long wrId) {
    }

    /**
     * A post the session made: when, and what its completion means for the local buffer.
     *
     * @param nanos System.nanoTime() at the post
     * @param opcode the send opcode, or null for a receive
     * @param localOffset where the local SGE starts
     * @param length its length
     * @param remoteOffset where the resources.remote() range starts (READ)
     */
    private record Posted(long nanos, WrOpcode opcode, int localOffset, int length, long remoteOffset) {
    }

    /**
     * Posts one send WR of the user's choosing ({@code ibv_post_send}) on the session's QP: the
     * data (if any) is first copied into this side's buffer at the local offset. Emits a
     * {@link LabEvent.VerbCall} and, for the data, a {@link LabEvent.BufferChanged}.
     *
     * @return ok with what was posted; failed with the reason when the QP is missing or not in
     *     RTS, no connection data was exchanged, the range is outside the buffer, or the verb failed
     */
    public StepResult postSend(TrafficRequest request) {
        QueuePair qp = resources.qp();
        MemoryRegion mr = resources.mr();
        ConnectionData remote = resources.remoteData().orElse(null);
        Objects.requireNonNull(request, "request");
        if (qp == null) {
            return cannotPost(LabPhrase.of("blocked.createQp"));
        }
        if (qp.state() != QpState.RTS) {
            return cannotPost(LabPhrase.of("blocked.rtsIs", qp.state().name()));
        }
        if (remote == null) {
            return cannotPost(LabPhrase.of("blocked.exchange"));
        }
        if (mr == null) {
            return cannotPost(LabPhrase.of("blocked.registerMr"));
        }
        if ((long) request.localOffset() + request.length() > mr.length()) {
            return cannotPost(LabPhrase.of("post.outside", request.localOffset(), request.length(), mr.length()));
        }
        byte[] data = request.data();
        if (data != null) {
            if ((long) request.localOffset() + data.length > mr.length()) {
                return cannotPost(LabPhrase.of("post.dataNoFit", data.length, request.localOffset(), mr.length()));
            }
            mr.write(request.localOffset(), data);
            session.emit(new LabEvent.BufferChanged(LabEvent.Side.LOCAL, request.localOffset(), data.length,
                    "local write before " + request.opcode().cName()));
        }
        WrOpcode opcode = request.opcode();
        boolean send = opcode == WrOpcode.SEND || opcode == WrOpcode.SEND_WITH_IMM;
        long remoteAddress = send ? 0 : remote.addr() + request.remoteOffset();
        SendWorkRequest wr = new SendWorkRequest(request.wrId(), List.of(mr.sge(request.localOffset(),
                request.length())), opcode, request.signaled() ? SendFlag.SIGNALED.value() : 0, request.imm(),
                remoteAddress, send ? 0 : remote.rkey(), request.compareAdd(), request.swap());
        Phrase what = posting(opcode, request.length(), remoteAddress, remote.rkey());
        try {
            postSend(wr, what.english(), request.remoteOffset());
        } catch (VerbsException e) {
            return StepResult.failed(e.getMessage());
        }
        return StepResult.ok(LabPhrase.of("result.posted", what), Phrase.literal("wr_id " + request.wrId()));
    }

    /** What a send WR does: "IBV_WR_RDMA_WRITE of 11 bytes at resources.remote() 0x… rkey 0x…" ("IBV_WR_SEND of 11 bytes"). */
    static Phrase posting(WrOpcode opcode, int length, long remoteAddress, int rkey) {
        return opcode == WrOpcode.SEND || opcode == WrOpcode.SEND_WITH_IMM
                ? LabPhrase.of("post.send", opcode.cName(), length)
                : LabPhrase.of("post.remote", opcode.cName(), length, String.format("0x%x", remoteAddress),
                        String.format("0x%x", rkey));
    }

    private static StepResult cannotPost(Phrase why) {
        return StepResult.failed(LabPhrase.of("result.cannotPost", why));
    }

    /**
     * Posts one receive WR ({@code ibv_post_recv}) of {@code length} bytes at {@code localOffset}
     * of this side's buffer. Emits a {@link LabEvent.VerbCall}.
     *
     * @return ok, or failed with the reason (no QP or MR, range outside the buffer, the verb failed)
     */
    public StepResult postReceive(long wrId, int localOffset, int length) {
        QueuePair qp = resources.qp();
        MemoryRegion mr = resources.mr();
        if (qp == null) {
            return cannotPost(LabPhrase.of("blocked.createQp"));
        }
        if (mr == null) {
            return cannotPost(LabPhrase.of("blocked.registerMr"));
        }
        if (localOffset < 0 || length < 0 || (long) localOffset + length > mr.length()) {
            return cannotPost(LabPhrase.of("post.outside", localOffset, length, mr.length()));
        }
        Phrase what = LabPhrase.of("post.recv", length, localOffset);
        try {
            postRecv(List.of(ReceiveWorkRequest.of(wrId, mr.sge(localOffset, length))), what.english());
        } catch (VerbsException e) {
            return StepResult.failed(e.getMessage());
        }
        return StepResult.ok(LabPhrase.of("result.posted", what), Phrase.literal("wr_id " + wrId));
    }

    /**
     * Polls the CQ ({@code ibv_poll_cq}) until at least one completion arrives or {@code timeout}
     * passes, then takes what else is there, up to {@code max} in all. Emits a
     * {@link LabEvent.Completion} per completion (with the time since its post) and, where a
     * completion changed this side's buffer (READ or atomic result, received SEND), a
     * {@link LabEvent.BufferChanged}; a successful RDMA READ also emits the bytes it read as a
     * {@link LabEvent.RemoteBuffer} with source "RDMA READ".
     *
     * @return the completions, oldest first; empty when none came in time
     * @throws IllegalStateException when there is no CQ yet
     */
    public List<WorkCompletion> pollCompletions(Duration timeout, int max) throws VerbsException {
        CompletionQueue cq = resources.cq();
        if (cq == null) {
            throw new IllegalStateException("create the CQ first");
        }
        if (max < 1) {
            throw new IllegalArgumentException("max: at least one completion, not " + max);
        }
        List<WorkCompletion> polled = new ArrayList<>();
        // One completion a poll, into a buffer kept for this wait: an empty poll, most of a
        // wait's, allocates nothing.
        CompletionBuffer one = new CompletionBuffer(1);
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = 1_000;
        while (true) {
            if (cq.poll(one) == 1) {
                WorkCompletion completion = one.get(0);
                completed(completion);
                polled.add(completion);
                if (polled.size() >= max) {
                    return polled;
                }
                continue;
            }
            if (!polled.isEmpty() || System.nanoTime() - deadline >= 0) {
                return polled;
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(pause * 2, 100_000);
        }
    }

    /**
     * A snapshot of the peer's buffer over TCP, where the protocol carries one (lab); emits a
     * {@link LabEvent.RemoteBuffer} with source "peer snapshot (lab protocol)".
     *
     * @return the bytes, or empty when not resources.connected() or the protocol cannot carry a snapshot
     * @throws ControlException when the peer refuses (range outside its buffer) or does not answer
     */
    public Optional<byte[]> readPeerBuffer(long offset, int length) throws ControlException {
        boolean connected = resources.connected();
        if (!connected || !session.link().protocol().equals("lab")) {
            return Optional.empty();
        }
        byte[] bytes = session.link().readPeerBuffer(offset, length);
        session.emit(new LabEvent.RemoteBuffer(bytes, offset, "peer snapshot (lab protocol)", Instant.now()));
        return Optional.of(bytes);
    }

    /**
     * {@code ibv_post_send} of one WR on the session's QP, remembered for its completion, logged.
     *
     * @param remoteOffset where the WR's resources.remote() range starts in the peer's buffer (for the RDMA READ view)
     */
    void postSend(SendWorkRequest wr, String what, long remoteOffset) throws VerbsException {
        QueuePair qp = resources.qp();
        MemoryRegion mr = resources.mr();
        String arguments = VerbArgs.postSend(qp, wr);
        ScatterGatherElementRange range = ScatterGatherElementRange.of(mr, wr);
        Posted posted = new Posted(System.nanoTime(), wr.opcode(), range.offset(), range.length(), remoteOffset);
        PostKey key = new PostKey(false, wr.wrId());
        posts.computeIfAbsent(key, k -> new ArrayDeque<>()).add(posted);
        try {
            qp.postSend(wr);
        } catch (VerbsException e) {
            forget(key, posted);
            session.emit(LabEvent.VerbCall.failed("ibv_post_send", arguments, e));
            throw e;
        }
        session.emit(LabEvent.VerbCall.ok("ibv_post_send", arguments, "0 (" + what + ")"));
        session.emit(posted(qp, wr));
    }

    private static LabEvent.SendPosted posted(QueuePair qp, SendWorkRequest wr) {
        return new LabEvent.SendPosted(qp.qpNum(), wr.wrId(), wr.opcode(), wr.totalLength(), wr.signaled());
    }

    /** {@code ibv_post_recv} of the WRs on the session's QP, remembered for their completions, logged. */
    public void postRecv(List<ReceiveWorkRequest> requests, String what) throws VerbsException {
        QueuePair qp = resources.qp();
        MemoryRegion mr = resources.mr();
        String arguments = VerbArgs.postRecv(qp, requests);
        long now = System.nanoTime();
        List<Posted> added = new ArrayList<>();
        for (ReceiveWorkRequest request : requests) {
            long address = request.sgList().isEmpty() ? 0 : request.sgList().get(0).address();
            int offset = mr == null ? 0 : (int) Math.max(0, address - mr.address());
            Posted posted = new Posted(now, null, offset, (int) Math.min(Integer.MAX_VALUE,
                    request.sgList().stream().mapToLong(sge -> Integer.toUnsignedLong(sge.length())).sum()), 0);
            posts.computeIfAbsent(new PostKey(true, request.wrId()), k -> new ArrayDeque<>()).add(posted);
            added.add(posted);
        }
        try {
            qp.postRecv(requests);
        } catch (VerbsException e) {
            for (int i = 0; i < requests.size(); i++) {
                forget(new PostKey(true, requests.get(i).wrId()), added.get(i));
            }
            session.emit(LabEvent.VerbCall.failed("ibv_post_recv", arguments, e));
            throw e;
        }
        session.emit(LabEvent.VerbCall.ok("ibv_post_recv", arguments, "0 (" + what + ")"));
    }

    private void forget(PostKey key, Posted posted) {
        ArrayDeque<Posted> queue = posts.get(key);
        if (queue != null) {
            queue.remove(posted);
        }
    }

    /**
     * {@code ibv_post_send} of a chain of send WRs in one call, as a C program links them with
     * {@code wr.next}: each is remembered for its completion, and one {@link LabEvent.VerbCall}
     * per WR says what was posted. The WRs are posted as given (remote addresses and rkeys
     * included, so a lesson can name a wrong one).
     *
     * @throws VerbsException as the device returned it (also emitted)
     * @throws IllegalStateException when there is no QP or MR yet
     */
    public void postSend(List<SendWorkRequest> chain) throws VerbsException {
        QueuePair qp = resources.qp();
        MemoryRegion mr = resources.mr();
        if (qp == null || mr == null) {
            throw new IllegalStateException("create the MR and the QP first");
        }
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("post at least one WR");
        }
        ConnectionData remote = resources.remoteData().orElse(null);
        List<PostKey> keys = new ArrayList<>();
        List<Posted> added = new ArrayList<>();
        long now = System.nanoTime();
        for (SendWorkRequest wr : chain) {
            ScatterGatherElementRange range = ScatterGatherElementRange.of(mr, wr);
            long remoteOffset = remote == null ? 0 : Math.max(0, wr.remoteAddress() - remote.addr());
            Posted posted = new Posted(now, wr.opcode(), range.offset(), range.length(), remoteOffset);
            PostKey key = new PostKey(false, wr.wrId());
            posts.computeIfAbsent(key, k -> new ArrayDeque<>()).add(posted);
            keys.add(key);
            added.add(posted);
        }
        try {
            qp.postSend(chain);
        } catch (VerbsException e) {
            for (int i = 0; i < keys.size(); i++) {
                forget(keys.get(i), added.get(i));
            }
            session.emit(LabEvent.VerbCall.failed("ibv_post_send", VerbArgs.postSend(qp, chain.get(0))
                    + (chain.size() > 1 ? " and " + (chain.size() - 1) + " more WRs" : ""), e));
            throw e;
        }
        for (int i = 0; i < chain.size(); i++) {
            SendWorkRequest wr = chain.get(i);
            session.emit(LabEvent.VerbCall.ok("ibv_post_send", VerbArgs.postSend(qp, wr), "0 (" + posting(
                    wr.opcode(), (int) Math.min(Integer.MAX_VALUE, wr.totalLength()), wr.remoteAddress(), wr.rkey())
                    .english() + (chain.size() > 1 ? ", WR " + (i + 1) + " of " + chain.size() + " in one call" : "")
                    + ")"));
            session.emit(posted(qp, wr));
        }
    }

    /**
     * The CPU writes this side's buffer ({@code memcpy}): {@code data} at {@code offset}. Emits a
     * {@link LabEvent.BufferChanged} saying {@code how}.
     *
     * @throws IllegalStateException when there is no MR yet
     * @throws IllegalArgumentException when the range is outside the buffer
     */
    public void write(int offset, byte[] data, String how) {
        MemoryRegion mr = resources.mr();
        if (mr == null) {
            throw new IllegalStateException("register the MR first");
        }
        if (offset < 0 || (long) offset + data.length > mr.length()) {
            throw new IllegalArgumentException(data.length + " bytes at offset " + offset + " do not fit the "
                    + mr.length() + "-byte buffer");
        }
        mr.write(offset, data);
        session.emit(new LabEvent.BufferChanged(LabEvent.Side.LOCAL, offset, data.length, how));
    }

    /**
     * A copy of {@code length} bytes of this side's buffer at {@code offset}, as its CPU sees them.
     *
     * @throws IllegalStateException when there is no MR yet
     * @throws IllegalArgumentException when the range is outside the buffer
     */
    public byte[] read(int offset, int length) {
        MemoryRegion mr = resources.mr();
        if (mr == null) {
            throw new IllegalStateException("register the MR first");
        }
        if (offset < 0 || length < 0 || (long) offset + length > mr.length()) {
            throw new IllegalArgumentException(length + " bytes at offset " + offset + " are outside the "
                    + mr.length() + "-byte buffer");
        }
        return mr.read(offset, length);
    }

    /**
     * Polls one completion for up to {@code timeout}, as the seed's poll_completion does, and
     * emits it as a {@link LabEvent.Completion} with the time since its post.
     *
     * @return the completion, or empty when none came in time
     * @throws IllegalStateException when there is no CQ yet
     */
    public Optional<WorkCompletion> pollOne(Duration timeout) throws VerbsException {
        CompletionQueue cq = resources.cq();
        if (cq == null) {
            throw new IllegalStateException("create the CQ first");
        }
        Optional<WorkCompletion> polled = cq.pollOne(timeout);
        polled.ifPresent(this::completed);
        return polled;
    }

    /** Emits a completion with the time since its post, and what it did to the local buffer. */
    private void completed(WorkCompletion completion) {
        MemoryRegion mr = resources.mr();
        ConnectionData remote = resources.remoteData().orElse(null);
        long now = System.nanoTime();
        boolean receive = completion.opcode() == WcOpcode.RECV || completion.opcode() == WcOpcode.RECV_RDMA_WITH_IMM;
        ArrayDeque<Posted> queue = posts.get(new PostKey(receive, completion.wrId()));
        Posted posted = queue == null ? null : queue.poll();
        if (!completion.isSuccess() && posted == null && !receive) {
            // An error completion's opcode is not meaningful: it may belong to a receive.
            queue = posts.get(new PostKey(true, completion.wrId()));
            posted = queue == null ? null : queue.poll();
        }
        session.emit(new LabEvent.Completion(completion, posted == null ? -1 : now - posted.nanos(), Instant.now()));
        if (posted == null || !completion.isSuccess() || mr == null) {
            return;
        }
        if (receive) {
            int length = (int) Math.min(posted.length(), Integer.toUnsignedLong(completion.byteLength()));
            if (length > 0) {
                session.emit(new LabEvent.BufferChanged(LabEvent.Side.LOCAL, posted.localOffset(), length,
                        "received " + (completion.opcode() == WcOpcode.RECV ? "SEND" : "RDMA WRITE with immediate")));
            }
        } else if (posted.opcode() == WrOpcode.RDMA_READ) {
            session.emit(new LabEvent.BufferChanged(LabEvent.Side.LOCAL, posted.localOffset(), posted.length(),
                    "RDMA READ result"));
            session.emit(new LabEvent.RemoteBuffer(mr.read(posted.localOffset(), posted.length()), posted.remoteOffset(),
                    "RDMA READ", Instant.now()));
        } else if (posted.opcode() != null && posted.opcode().isAtomic()) {
            session.emit(new LabEvent.BufferChanged(LabEvent.Side.LOCAL, posted.localOffset(), posted.length(),
                    posted.opcode().name() + " result (the remote word's old value)"));
        }
    }

    /** Where a send WR's first SGE lies in the session's MR. */
    private record ScatterGatherElementRange(int offset, int length) {
        static ScatterGatherElementRange of(MemoryRegion mr, SendWorkRequest wr) {
            if (wr.sgList().isEmpty() || mr == null) {
                return new ScatterGatherElementRange(0, 0);
            }
            long offset = Math.max(0, wr.sgList().get(0).address() - mr.address());
            return new ScatterGatherElementRange((int) Math.min(offset, mr.length()),
                    (int) Math.min(Integer.MAX_VALUE, wr.totalLength()));
        }
    }
}
