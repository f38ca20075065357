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
    public String description() {
        return "the server's QP is destroyed, so nothing answers: after timeout x (retry_cnt + 1)"
                + " the WRITE completes with IBV_WC_RETRY_EXC_ERR";
    }

    @Override
    public ScenarioResult run(LoopbackLab lab) throws VerbsException {
        Checks checks = lab.checks();
        PeerSetup clientSetup = PeerSetup.roomy(16).withRetry(TIMEOUT, RETRY_COUNT);
        LoopbackLab.Connection connection = lab.connect(PeerSetup.roomy(16), clientSetup);
        Peer server = connection.server();
        Peer client = connection.client();
        ConnectionData remote = server.connectionData();

        long timeoutNanos = RnrTimer.ackTimeoutNanos(TIMEOUT);
        long expectedNanos = timeoutNanos * (RETRY_COUNT + 1);
        lab.note(String.format("expected: the first send plus %d resends, each waiting timeout %s:"
                + " %s before IBV_WC_RETRY_EXC_ERR", RETRY_COUNT, Peer.millis(timeoutNanos), Peer.millis(expectedNanos)));
        server.destroyQp();
        client.fill(0, SeedScenario.MESSAGE, "\"HelloWorld\"");
        client.postSend(SendWorkRequest.write(1, client.mr().sge(0, SeedScenario.MESSAGE.length), remote.address(),
                remote.rkey(), SendFlag.SIGNALED.value()));
        Duration wait = lab.pollTimeout().plusNanos(expectedNanos * 3);
        Optional<WorkCompletion> completion = client.poll(wait);
        long measured = client.lastElapsedNanos();
        checks.completion(completion, 1, WcStatus.RETRY_EXC_ERR, null, -1);
        if (completion.isPresent()) {
            boolean plausible = measured >= expectedNanos / 2 && measured <= expectedNanos * 3 + 1_000_000_000L;
            checks.that(plausible, String.format("measured %s, expected about %s", Peer.millis(measured),
                    Peer.millis(expectedNanos)), String.format("measured %s, far from the expected %s (timeout x"
                    + " (retry_cnt + 1))", Peer.millis(measured), Peer.millis(expectedNanos)));
        }
        return checks.result(String.format("the unanswered WRITE completed with IBV_WC_RETRY_EXC_ERR after %s"
                + " (expected about %s)", Peer.millis(measured), Peer.millis(expectedNanos)));
    }
}
