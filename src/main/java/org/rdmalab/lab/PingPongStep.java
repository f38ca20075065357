package org.rdmalab.lab;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import org.rdmalab.baseline.RoundTrips;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
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
     * Below this many round trips soft0's figure still carries the JIT compiler's last
     * compilations, after the warm-up on private twins ({@link PathWarmUp}): on a 2-core machine
     * 1 000 round trips took 29–400 µs each against a median of about 21 µs over 200 000
     * (docs/performance.md, "The first thousand round trips").
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
        int iterations = parameter("iters").asInt();
        Duration timeout = Duration.ofMillis(parameter("timeout_ms").asLong());
        int size = resources.mr().length();
        boolean software = isSoftware(session);
        RoundTrips trips = new RoundTrips();
        roundTrips = trips;
        SendWorkRequest send = SendWorkRequest.send(SEND_WR_ID, resources.mr().sge(), SendFlag.SIGNALED.value());
        ReceiveWorkRequest receive = ReceiveWorkRequest.of(RECV_WR_ID, resources.mr().sge());
        CompletionBuffer completions = new CompletionBuffer(2); // ibv_rc_pingpong's wc[2]
        long start = System.nanoTime();
        Race race = new Race(resources.qp(), resources.cq(), send, receive, completions, trips,
                resources.receivesPosted());
        String failed = race.run(session.role() == Role.CLIENT, iterations, timeout, start);
        if (failed != null) {
            if (race.failure != null) {
                session.emit(new LabEvent.Completion(race.failure));
            }
            return StepResult.failed(failed);
        }
        long end = System.nanoTime();
        if (session.role() == Role.CLIENT) {
            trips.record(end - race.lastSend); // its last SEND's answer; the server's last turn waits only for an ACK
        }
        double seconds = (end - start) / 1e9;
        microsPerIteration = seconds * 1e6 / iterations;
        long bytes = (long) size * iterations * 2;
        session.print(String.format("%d bytes in %.2f seconds = %.2f Mbit/sec", bytes, seconds, bytes * 8 / seconds / 1e6));
        session.print(String.format("%d iters in %.2f seconds = %.2f usec/iter", iterations, seconds,
                microsPerIteration));
        if (software && iterations < SHORT_RUN) {
            session.print("note: soft0 is Java: its path was warmed up on private twins before the run, but a run "
                    + "this short still carries the JIT compiler's last compilations and the machine's stalls; the "
                    + "round trip median says more (README: for short runs start both sides with java "
                    + "-XX:TieredStopAtLevel=1)");
        }
        // A server of one iteration times none: its only turn waits for the client's SEND, not for a round trip.
        return StepResult.ok(iterations + " round trips of " + size + " bytes in " + String.format("%.2f s", seconds)
                + (trips.count() > 0 ? "; round trip " + trips.summary() : ""));
    }

    /**
     * ibv_rc_pingpong's loop on one QP and its CQ: the client sends first; each side sends its next
     * message once its previous SEND and a RECV have completed, until both counted the iterations.
     * The lab's run and {@link PathWarmUp}'s private pair run this same code.
     */
    static final class Race {
        private final QueuePair qp;
        private final CompletionQueue cq;
        private final SendWorkRequest send;
        private final ReceiveWorkRequest receive;
        private final CompletionBuffer completions;
        private final RoundTrips trips;
        /** Receives posted and not yet completed. */
        private int posted;
        /** When this side last posted its SEND. */
        long lastSend;
        /** The failed completion that ended the run, if one did. */
        WorkCompletion failure;

        Race(QueuePair qp, CompletionQueue cq, SendWorkRequest send, ReceiveWorkRequest receive,
             CompletionBuffer completions, RoundTrips trips, int posted) {
            this.qp = qp;
            this.posted = posted;
            this.cq = cq;
            this.send = send;
            this.receive = receive;
            this.completions = completions;
            this.trips = trips;
        }

        /**
         * Runs {@code iterations} round trips; a race may run again on the same QPs (each run
         * leaves no SEND or receive completion behind, and the receives posted are counted on).
         *
         * @return null when every round trip completed, else what stopped the run
         */
        String run(boolean client, int iterations, Duration timeout, long start) throws VerbsException {
            int sent = 0;
            int received = 0;
            boolean sendPending = false;
            boolean receivePending = true;
            lastSend = start;
            if (client) {
                qp.postSend(send);
                sendPending = true;
            }
            while (received < iterations || sent < iterations) {
                // Busy, as ibv_rc_pingpong polls without -e; into one buffer kept for the run, so that
                // polling allocates nothing.
                int polled = cq.busyPoll(completions, timeout);
                if (polled == 0) {
                    return "no completion within " + timeout.toMillis() + " ms after " + sent + " sends and "
                            + received + " receives";
                }
                for (int i = 0; i < polled; i++) {
                    if (!completions.isSuccess(i)) {
                        failure = completions.get(i);
                        return failure.status().cName() + " (" + failure.status().text() + ")";
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
                            qp.postRecv(Collections.nCopies(RECEIVE_DEPTH - posted, receive));
                            posted = RECEIVE_DEPTH;
                        }
                    }
                    if (sent < iterations && !sendPending && !receivePending) {
                        long now = System.nanoTime();
                        if (sent > 0) {
                            trips.record(now - lastSend);
                        }
                        lastSend = now;
                        qp.postSend(send);
                        sendPending = true;
                        receivePending = true;
                    }
                }
            }
            return null;
        }
    }

    private static boolean isSoftware(LabSession session) {
        return session.resources().context().map(context -> "software".equals(context.device().backend()))
                .orElse(false);
    }

    /** ibv_rc_pingpong's {@code pp_post_recv(ctx, rx_depth)}. */
    static final class PostReceives extends Step {

        private final Mtu mtu;
        private final Duration timeout;
        private final int warmUpRounds;

        /**
         * Warm-up round trips per round trip of the run: ibv_rc_pingpong's default 1 000 get 10 000,
         * about what the JIT compiler needs to have compiled the whole path with C2 on a 2-core
         * machine (docs/performance.md, "The first thousand round trips").
         */
        static final int WARM_UP_FACTOR = 10;

        /**
         * @param mtu the path MTU the run will use, {@code timeout} its longest wait for a
         *     completion and {@code iterations} its round trips: on a software device the step then
         *     warms the run's path up ({@link PathWarmUp}) with {@value #WARM_UP_FACTOR} times as
         *     many round trips, at most {@link PathWarmUp#ROUNDS} (a short test run stays short)
         */
        PostReceives(Mtu mtu, Duration timeout, int iterations) {
            super("post-receives", "Post receives",
                    Parameter.integer("rx_depth", "receives posted up front", RECEIVE_DEPTH, 1, 16384));
            this.mtu = mtu;
            this.timeout = timeout;
            this.warmUpRounds = (int) Math.min(WARM_UP_FACTOR * (long) iterations, PathWarmUp.ROUNDS);
        }

        /** The round trips the warm-up runs on a software device. */
        int warmUpRounds() {
            return warmUpRounds;
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
            int rounds = Integer.getInteger(PathWarmUp.ROUNDS_PROPERTY, warmUpRounds);
            if (!isSoftware(session) || rounds <= 0) {
                return StepResult.ok(LabPhrase.of("result.receivesPosted", depth));
            }
            // Before the connection data go out, so that each side's warm-up ends before the run
            // begins; and one side after the other (Flows.pingpong: the server's before it listens,
            // the client's once connected), so that the two never share the cores.
            long begin = System.nanoTime();
            int done;
            try {
                done = PathWarmUp.run(session, rounds, mtu, timeout,
                        PathWarmUp.Limits.within(session.link().shortestWait()));
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                return StepResult.ok(LabPhrase.of("result.receivesPostedWarmUpFailed", depth, e.getMessage()));
            }
            return StepResult.ok(LabPhrase.of("result.receivesPostedWarmedUp", depth, done,
                    String.format(Locale.ROOT, "%.2f", (System.nanoTime() - begin) / 1e9)));
        }
    }
}
