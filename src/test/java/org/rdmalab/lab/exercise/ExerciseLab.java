package org.rdmalab.lab.exercise;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.StepResult;
import org.rdmalab.lab.TrafficRequest;
import org.rdmalab.testing.Await;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.FaultControl;
import org.rdmalab.verbs.OneShotFault;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The loopback lab as a student drives it, without a window: an exercise's start applied to the
 * server's and the client's sessions (soft0 on real UDP, control plane in memory), an attempt
 * following their events, and the commands the window's buttons give: run both to the end, reset,
 * edit a parameter, post from the Traffic tab (post, then poll), post a receive, arm a one-shot fault.
 */
final class ExerciseLab implements AutoCloseable {

    /** How long a wait for a check may take before the test fails. */
    static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofSeconds(3);

    final Attempt attempt;
    final LabSession server;
    final LabSession client;
    /** What the last run of each side ended with, for a failure's message. */
    String lastRun = "";

    ExerciseLab(Exercise exercise) {
        DeviceOptions base = DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort());
        LabSetup loopback = LabSetup.loopback().withBase(base);
        // A side that stopped early leaves the other waiting at a sync until this runs out (four tests wait it
        // out once each): 2 s, not the window's 60 s; a side that runs on reaches the sync in milliseconds.
        LabSetup shorter = new LabSetup(loopback.mode(), loopback.device(), loopback.ibPort(), loopback.gidIndex(),
                loopback.flow(), loopback.protocol(), loopback.role(), loopback.localIp(), loopback.peerIp(),
                loopback.tcpPort(), loopback.pollTimeoutMillis(), Duration.ofSeconds(2), base);
        List<LabSession> sessions = exercise.start().setup(shorter).open(Backends.installed());
        server = sessions.get(0);
        client = sessions.get(1);
        attempt = Attempt.start(exercise, sessions);
    }

    LabSession side(Role role) {
        return role == Role.SERVER ? server : client;
    }

    /** Runs both sides to their end at once (F8); true when both ran every step. */
    boolean runBoth() throws Exception {
        CompletableFuture<Optional<StepResult>> serverRun = CompletableFuture.supplyAsync(server::runToEnd);
        Optional<StepResult> clientLast = client.runToEnd();
        Optional<StepResult> serverLast = serverRun.get(60, TimeUnit.SECONDS);
        lastRun = "server: " + serverLast.map(StepResult::summary).orElse("-") + "; client: "
                + clientLast.map(StepResult::summary).orElse("-");
        return clientLast.map(StepResult::ok).orElse(true) && serverLast.map(StepResult::ok).orElse(true)
                && server.finished() && client.finished();
    }

    /** Ctrl+R: both sides released and their steps pending again, parameters kept. */
    void resetBoth() {
        server.reset();
        client.reset();
    }

    /** Sets a parameter of one side's step, as the step pane does. */
    void edit(Role role, String step, String parameter, String value) {
        side(role).steps().stream().filter(each -> each.id().equals(step)).findFirst().orElseThrow()
                .parameter(parameter).set(value);
    }

    /** The Traffic tab's Post: the request, then a poll of the side's CQ; the completions polled. */
    List<WorkCompletion> post(Role role, TrafficRequest request) throws Exception {
        StepResult posted = side(role).traffic().postSend(request);
        if (!posted.ok()) {
            throw new AssertionError("not posted: " + posted.summary());
        }
        return side(role).traffic().pollCompletions(POLL, 16);
    }

    /** The Traffic tab's Post receive. */
    void postReceive(Role role, int length) {
        StepResult posted = side(role).traffic().postReceive(1, 0, length);
        if (!posted.ok()) {
            throw new AssertionError("receive not posted: " + posted.summary());
        }
    }

    /** Polls a side's CQ, as the window does for the peer of a SEND. */
    List<WorkCompletion> poll(Role role) throws Exception {
        return side(role).traffic().pollCompletions(POLL, 16);
    }

    /** The Faults tab's one-shot fault, armed on both devices (which are open). */
    OneShotFault arm(OneShotFault.Kind kind) {
        OneShotFault shot = OneShotFault.of(kind, OneShotFault.Way.REQUESTER_TO_RESPONDER);
        for (LabSession session : List.of(server, client)) {
            ((FaultControl) session.resources().context().orElseThrow()).arm(shot);
        }
        return shot;
    }

    /** A text request with its bytes. */
    static TrafficRequest text(WrOpcode opcode, String text, long remoteOffset) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return TrafficRequest.of(opcode, 1, 0, bytes.length, remoteOffset).withData(bytes);
    }

    /** Waits until check {@code index} (from 0) is met. */
    void awaitMet(int index) {
        Await.until("check " + (index + 1) + ": " + attempt.exercise().checks().get(index).said(), WAIT,
                () -> attempt.statuses().get(index).met());
    }

    /** Waits until every check is met. */
    void awaitDone() {
        Await.until("every check of " + attempt.exercise().name() + "; open: " + open(), WAIT, attempt::done);
    }

    /** The checks still open, said in English. */
    String open() {
        return attempt.statuses().stream().filter(status -> !status.met()).map(status -> status.check().said().english())
                .toList().toString();
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
