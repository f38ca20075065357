package org.rdmalab.lab;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import org.rdmalab.baseline.RoundTrips;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WorkCompletion;

/**
 * ibv_rc_pingpong's data phase: both sides keep {@value #RECEIVE_DEPTH} receives posted; the
 * client sends first; each side sends its next message once its previous SEND and a RECV have
 * completed, until both counted the iterations. Prints its two result lines.
 */
final class PingPongStep extends Step {

    /** ibv_rc_pingpong's rx_depth. */
    static final int RECEIVE_DEPTH = 500;
    /** ibv_rc_pingpong fills its buffer with this byte. */
    static final int FILL = 0x7b;
    private static final long RECV_WR_ID = 1;
    private static final long SEND_WR_ID = 2;

    /**
     * Below this many round trips soft0's figure is mostly the JIT compiler's warm-up: on a 2-core
     * machine the first 1 000 took about 340 µs each and the steady state (from about the
     * 11 000th) 7.5 (docs/performance.md).
     */
    static final int SHORT_RUN = 100_000;

    private double microsPerIteration = Double.NaN;
    private RoundTrips roundTrips;

    PingPongStep(int iterations, long timeoutMillis) {
        super("pingpong", "Ping-pong SEND/RECV",
                Parameter.integer("iters", "round trips", iterations, 1, 100_000_000),
                Parameter.integer("timeout_ms", "longest wait for any one completion", timeoutMillis, 1, 600_000));
    }

    /** Microseconds per round trip of the last run, if it ran to the end. */
    OptionalDouble microsPerIteration() {
        return Double.isNaN(microsPerIteration) ? OptionalDouble.empty() : OptionalDouble.of(microsPerIteration);
    }

    /**
     * Each round trip of the last run, if it ran to the end: the time from one of this side's
     * SENDs to its next (and the client's last one to the run's end).
     */
    Optional<RoundTrips> roundTrips() {
        return Double.isNaN(microsPerIteration) ? Optional.empty() : Optional.ofNullable(roundTrips);
    }

    @Override
    public String cCode(LabSession session) {
        return """
                if (servername)
                    pp_post_send(ctx);          /* the client starts */
                while (rcnt < iters || scnt < iters) {
                    ne = ibv_poll_cq(ctx->cq, 2, wc);
                    for (i = 0; i < ne; ++i) {
                        if (wc[i].wr_id == PINGPONG_SEND_WRID) ++scnt;
                        else { if (--routs <= 1) routs += pp_post_recv(ctx, ctx->rx_depth - routs); ++rcnt; }
                        ctx->pending &= ~(int) wc[i].wr_id;
                        if (scnt < iters && !ctx->pending) { pp_post_send(ctx); ctx->pending = RECV | SEND; }
                    }
                }""";
    }

    @Override
    public Optional<Phrase> blockedBy(LabSession session) {
        LabResources resources = session.resources();
        if (resources.qp() == null || resources.qp().state() != QpState.RTS) {
            return Optional.of(LabPhrase.of("blocked.rts"));
        }
        return Optional.empty();
    }

    @Override
    protected StepResult execute(LabSession session) throws Exception {
        LabResources resources = session.resources();
        microsPerIteration = Double.NaN;
        RoundTrips trips = new RoundTrips();
        roundTrips = trips;
        int iterations = parameter("iters").asInt();
        Duration timeout = Duration.ofMillis(parameter("timeout_ms").asLong());
        int size = resources.mr().length();
        SendWorkRequest send = SendWorkRequest.send(SEND_WR_ID, resources.mr().sge(), SendFlag.SIGNALED.value());
        ReceiveWorkRequest receive = ReceiveWorkRequest.of(RECV_WR_ID, resources.mr().sge());
        int sent = 0;
        int received = 0;
        int posted = resources.receivesPosted();
        boolean sendPending = false;
        boolean receivePending = true;
        long start = System.nanoTime();
        long lastSend = start;
        if (session.role() == Role.CLIENT) {
            resources.qp().postSend(send);
            sendPending = true;
        }
        CompletionBuffer completions = new CompletionBuffer(2); // ibv_rc_pingpong's wc[2]
        while (received < iterations || sent < iterations) {
            // Busy, as ibv_rc_pingpong polls without -e; into one buffer kept for the run, so that
            // polling allocates nothing.
            int polled = resources.cq().busyPoll(completions, timeout);
            if (polled == 0) {
                return StepResult.failed("no completion within " + timeout.toMillis() + " ms after " + sent
                        + " sends and " + received + " receives");
            }
            for (int i = 0; i < polled; i++) {
                if (!completions.isSuccess(i)) {
                    WorkCompletion failed = completions.get(i);
                    session.emit(new LabEvent.Completion(failed));
                    return StepResult.failed(failed.status().cName() + " (" + failed.status().text() + ")");
                }
                if (completions.opcode(i) == WcOpcode.SEND) {
                    sent++;
                    sendPending = false;
                } else {
                    received++;
                    receivePending = false;
                    posted--;
                    if (posted <= 1) {
                        // The same request again and again, as pp_post_recv posts its one wr: a list
                        // view of it, not a list of copies.
                        resources.qp().postRecv(Collections.nCopies(RECEIVE_DEPTH - posted, receive));
                        posted = RECEIVE_DEPTH;
                    }
                }
                if (sent < iterations && !sendPending && !receivePending) {
                    long now = System.nanoTime();
                    if (sent > 0) {
                        trips.record(now - lastSend);
                    }
                    lastSend = now;
                    resources.qp().postSend(send);
                    sendPending = true;
                    receivePending = true;
                }
            }
        }
        long end = System.nanoTime();
        if (session.role() == Role.CLIENT) {
            trips.record(end - lastSend); // its last SEND's answer; the server's last turn waits only for an ACK
        }
        double seconds = (end - start) / 1e9;
        microsPerIteration = seconds * 1e6 / iterations;
        long bytes = (long) size * iterations * 2;
        session.print(String.format("%d bytes in %.2f seconds = %.2f Mbit/sec", bytes, seconds, bytes * 8 / seconds / 1e6));
        session.print(String.format("%d iters in %.2f seconds = %.2f usec/iter", iterations, seconds,
                microsPerIteration));
        boolean software = resources.context().map(context -> "software".equals(context.device().backend()))
                .orElse(false);
        if (software && iterations < SHORT_RUN) {
            session.print("note: soft0 is Java, and its first ~10 000 round trips run before the JIT compiler has "
                    + "compiled their path: a run this short mostly measures that (README: for short runs start both "
                    + "sides with java -XX:TieredStopAtLevel=1)");
        }
        // A server of one iteration times none: its only turn waits for the client's SEND, not for a round trip.
        return StepResult.ok(iterations + " round trips of " + size + " bytes in " + String.format("%.2f s", seconds)
                + (trips.count() > 0 ? "; round trip " + trips.summary() : ""));
    }

    /** ibv_rc_pingpong's {@code pp_post_recv(ctx, rx_depth)}. */
    static final class PostReceives extends Step {

        PostReceives() {
            super("post-receives", "Post receives",
                    Parameter.integer("rx_depth", "receives posted up front", RECEIVE_DEPTH, 1, 16384));
        }

        @Override
        public String cCode(LabSession session) {
            return "routs = pp_post_recv(ctx, %d);".formatted(parameter("rx_depth").asInt());
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().qp() == null ? Optional.of(LabPhrase.of("blocked.createQp")) : Optional.empty();
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            LabResources resources = session.resources();
            int depth = parameter("rx_depth").asInt();
            List<ReceiveWorkRequest> requests = new ArrayList<>();
            for (int i = 0; i < depth; i++) {
                requests.add(ReceiveWorkRequest.of(RECV_WR_ID, resources.mr().sge()));
            }
            session.traffic().postRecv(requests, depth + " receives of " + resources.mr().length() + " bytes");
            resources.receivesPosted(depth);
            return StepResult.ok(LabPhrase.of("result.receivesPosted", depth));
        }
    }
}
