package org.rdmalab.lab.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.Step;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.spi.Backends;

/**
 * The scenario model as the window's gallery drives it: the two sessions' steps run by two
 * threads at once (the lab's sides), meeting at the exchange, then the traffic and its checks. One
 * test per kind of outcome a scenario checks, and one where an edited step makes the outcome
 * differ and the checks say how.
 */
@Timeout(60)
class ScenarioSessionsTest {

    /** What a run reported, and its result. */
    private record Run(ScenarioResult result, List<ScenarioEvent> events, List<List<String>> stepIds) {

        List<WcStatus> statuses(PeerRole role) {
            return events.stream().filter(e -> e instanceof ScenarioEvent.Completion c && c.role() == role)
                    .map(e -> ((ScenarioEvent.Completion) e).completion().status()).collect(Collectors.toList());
        }

        String log() {
            return events.stream().map(Object::toString).collect(Collectors.joining("\n"));
        }
    }

    /** Runs {@code name} with each session's steps on a thread of its own; {@code edit} may change a step first. */
    private static Run run(String name, java.util.function.Consumer<List<LabSession>> edit) throws Exception {
        List<ScenarioEvent> events = Collections.synchronizedList(new ArrayList<>());
        Scenario scenario = Scenarios.find(name).orElseThrow();
        java.util.concurrent.atomic.AtomicReference<ScenarioResult> checked = new java.util.concurrent.atomic
                .AtomicReference<>();
        ScenarioSessions sessions = ScenarioSessions.withTrafficStep(scenario, Backends.installed(),
                LoopbackSettings.defaults(Ports.freeUdpPort()), events::add, false, checked::set);
        try {
            edit.accept(sessions.sessions());
            List<CompletableFuture<Void>> sides = new ArrayList<>();
            for (LabSession session : sessions.sessions()) {
                sides.add(CompletableFuture.runAsync(session::runToEnd));
            }
            for (CompletableFuture<Void> side : sides) {
                side.get(30, TimeUnit.SECONDS);
            }
            List<List<String>> ids = sessions.sessions().stream()
                    .map(s -> s.steps().stream().map(Step::id).toList()).toList();
            ScenarioResult result = checked.get();
            assertTrue(result != null, () -> "the last step posted the traffic:\n" + events);
            // The last step is done exactly when the outcome is the expected one.
            assertEquals(result.asExpected(), sessions.stepsDone(), result::toString);
            return new Run(result, new ArrayList<>(events), ids);
        } finally {
            sessions.close();
        }
    }

    private static Run run(String name) throws Exception {
        return run(name, sessions -> { });
    }

    @Test
    void theSidesStepsAreTheLabsStepsUpToRtsMeetingAtTheExchange() throws Exception {
        Run run = run("seed");
        assertTrue(run.result().asExpected(), run::log);
        assertEquals(List.of("open-device", "query-port", "alloc-pd", "reg-mr", "create-cq", "create-qp", "connect",
                "send-data", "receive-data", "modify-init", "modify-rtr", "modify-rts"), run.stepIds().get(0));
        assertEquals(List.of("open-device", "query-port", "alloc-pd", "reg-mr", "create-cq", "create-qp", "connect",
                "exchange", "modify-init", "modify-rtr", "modify-rts", "scenario-traffic"), run.stepIds().get(1));
        assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS), run.statuses(PeerRole.CLIENT));
    }

    @Test
    void aRemoteErrorCompletesWithItsStatusAndFlushesTheRequestBehindIt() throws Exception {
        Run run = run("bad-rkey");
        assertTrue(run.result().asExpected(), run::log);
        assertEquals(List.of(WcStatus.REM_ACCESS_ERR, WcStatus.WR_FLUSH_ERR), run.statuses(PeerRole.CLIENT));
        assertEquals("the WRITE completed with IBV_WC_REM_ACCESS_ERR and the READ behind it with IBV_WC_WR_FLUSH_ERR",
                run.result().summary());
    }

    @Test
    void aSendWithoutAReceiveEndsInRnrRetriesExceeded() throws Exception {
        Run run = run("rnr");
        assertTrue(run.result().asExpected(), run::log);
        assertEquals(List.of(WcStatus.RNR_RETRY_EXC_ERR), run.statuses(PeerRole.CLIENT));
    }

    @Test
    void aSilentPeerEndsInTransportRetriesExceeded() throws Exception {
        Run run = run("retry-exceeded");
        assertTrue(run.result().asExpected(), run::log);
        assertEquals(List.of(WcStatus.RETRY_EXC_ERR), run.statuses(PeerRole.CLIENT));
    }

    @Test
    void aRefusedTransitionIsCheckedOnTheServerAlone() throws Exception {
        Run run = run("bad-transition");
        assertTrue(run.result().asExpected(), run::log);
        assertEquals(1, run.stepIds().size(), "the server alone");
        assertEquals(List.of("create-qp", "scenario-traffic"), run.stepIds().get(0).subList(5, 7),
                "its steps stop at its QP, then its traffic");
        assertTrue(run.events().stream().anyMatch(e -> e instanceof ScenarioEvent.VerbFailed f
                && f.message().contains("EINVAL")), run::log);
    }

    @Test
    void aStepEditedInTheLabChangesTheOutcomeAndTheChecksSayWhatDiffered() throws Exception {
        // rnr_retry 7 retries for ever: the SEND never completes within the poll, the QP stays in RTS.
        Run run = run("rnr", sessions -> sessions.get(1).steps().stream().filter(s -> s.id().equals("modify-rts"))
                .findFirst().orElseThrow().parameter("rnr_retry").set("7"));
        assertFalse(run.result().asExpected(), run::log);
        assertEquals(List.of(), run.statuses(PeerRole.CLIENT));
        assertTrue(run.result().problems().contains(
                "wr_id 1: expected IBV_WC_RNR_RETRY_EXC_ERR, but no completion came"), run.result()::toString);
        assertTrue(run.result().problems().contains("the client's QP should be in IBV_QPS_ERR after an error completion"),
                run.result()::toString);
        assertTrue(run.events().stream().anyMatch(e -> e instanceof ScenarioEvent.Step s && s.verb().equals("ibv_query_qp")
                && s.detail().endsWith(QpState.RTS.cName())), run::log);
    }
}
