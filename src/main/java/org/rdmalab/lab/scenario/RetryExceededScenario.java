package org.rdmalab.lab.scenario;

import java.time.Duration;
import java.util.Optional;
import org.rdmalab.verbs.RnrTimer;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/**
 * The server's QP disappears after the connection is set up; the client's WRITE is never
 * acknowledged, is resent retry_cnt times and completes with IBV_WC_RETRY_EXC_ERR.
 */
final class RetryExceededScenario implements Scenario {

    /** A short local ACK timeout: 4.096 µs × 2^14 ≈ 67 ms (the seed's 0x12 is about 1.07 s). */
    static final int TIMEOUT = 14;
    /** The seed's retry count. */
    static final int RETRY_COUNT = 6;

    @Override
    public String name() {
        return "retry-exceeded";
    }


    @Override
    public Plan plan(LoopbackSettings settings) {
        return Plan.connected(PeerSetup.roomy(16), PeerSetup.roomy(16).withRetry(TIMEOUT, RETRY_COUNT));
    }

    @Override
    public ScenarioResult traffic(ScenarioRun run) throws VerbsException {
        Checks checks = run.checks();
        ScenarioSide server = run.server();
        ScenarioSide client = run.client();
        org.rdmalab.control.ConnectionData remote = server.connectionData();

        long timeoutNanos = RnrTimer.ackTimeoutNanos(TIMEOUT);
        long expectedNanos = timeoutNanos * (RETRY_COUNT + 1);
        run.note(String.format("expected: the first send plus %d resends, each waiting timeout %s:"
                + " %s before IBV_WC_RETRY_EXC_ERR", RETRY_COUNT, ScenarioPrinter.millis(timeoutNanos), ScenarioPrinter.millis(expectedNanos)));
        server.destroyQp();
        client.fill(0, SeedScenario.MESSAGE, "\"HelloWorld\"");
        client.postSend(SendWorkRequest.write(1, client.sge(0, SeedScenario.MESSAGE.length), remote.addr(),
                remote.rkey(), SendFlag.SIGNALED.value()));
        Duration wait = run.pollTimeout().plusNanos(expectedNanos * 3);
        Optional<WorkCompletion> completion = client.poll(wait);
        long measured = client.lastElapsedNanos();
        checks.completion(completion, 1, WcStatus.RETRY_EXC_ERR, null, -1);
        if (completion.isPresent()) {
            boolean plausible = measured >= expectedNanos / 2 && measured <= expectedNanos * 3 + 1_000_000_000L;
            checks.that(plausible, String.format("measured %s, expected about %s", ScenarioPrinter.millis(measured),
                    ScenarioPrinter.millis(expectedNanos)), String.format("measured %s, far from the expected %s (timeout x"
                    + " (retry_cnt + 1))", ScenarioPrinter.millis(measured), ScenarioPrinter.millis(expectedNanos)));
        }
        return checks.result(String.format("the unanswered WRITE completed with IBV_WC_RETRY_EXC_ERR after %s"
                + " (expected about %s)", ScenarioPrinter.millis(measured), ScenarioPrinter.millis(expectedNanos)));
    }
}
