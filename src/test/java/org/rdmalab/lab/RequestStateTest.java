package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/** QP transitions asked for by hand, as the state diagram does. */
class RequestStateTest {

    private final List<LabEvent> events = Collections.synchronizedList(new ArrayList<>());
    private LabSession server;
    private LabSession client;

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static LabSession session(Role role, String address, int udpPort, PeerLink link) {
        DeviceOptions options = DeviceOptions.defaults().withAddress(DeviceOptions.parseAddress(address))
                .withUdpPort(udpPort);
        return new LabSession(role, Backends.installed(), options, link,
                Flows.seed(role, Flows.SeedFlow.WRITE_ONLY, Flows.Settings.seed("soft0")));
    }

    /** Runs {@code session} until {@code id} has run. */
    private static void runThrough(LabSession session, String id) {
        while (true) {
            Step step = session.nextStep().orElseThrow();
            StepResult result = session.runNext().orElseThrow();
            assertTrue(result.ok(), () -> step.title() + ": " + result.summary());
            if (step.id().equals(id)) {
                return;
            }
        }
    }

    /** Both peers at RTS; the client's events are recorded. */
    private void bothAtRts() throws Exception {
        int udpPort = Ports.freeUdpPort();
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(10));
        server = session(Role.SERVER, "127.0.0.1", udpPort, links[0]);
        client = session(Role.CLIENT, "127.0.0.2", udpPort, links[1]);
        client.addListener(events::add);
        CompletableFuture<Void> serverRun = CompletableFuture.runAsync(() -> runThrough(server, "modify-rts"));
        runThrough(client, "modify-rts");
        serverRun.get(30, TimeUnit.SECONDS);
        events.clear();
    }

    private <T extends LabEvent> List<T> recorded(Class<T> type) {
        synchronized (events) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    @Test
    void resetToRtsIsRefusedWithTheKernelsReasonAndTheStateStays() {
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(1));
        client = session(Role.CLIENT, "127.0.0.2", Ports.freeUdpPort(), links[1]);
        client.addListener(events::add);
        assertThrows(IllegalStateException.class, () -> client.requestState(QpState.RTS));
        runThrough(client, "create-qp");
        events.clear();

        assertFalse(client.requestState(QpState.RTS));

        assertEquals(QpState.RESET, client.resources().queuePair().orElseThrow().state());
        List<LabEvent.TransitionRefused> refused = recorded(LabEvent.TransitionRefused.class);
        assertEquals(1, refused.size());
        LabEvent.TransitionRefused event = refused.get(0);
        assertEquals(LabEvent.Side.LOCAL, event.side());
        assertEquals(client.resources().queuePair().orElseThrow().qpNum(), event.qpNum());
        assertEquals(QpState.RESET, event.from());
        assertEquals(QpState.RTS, event.to());
        assertEquals(Errno.EINVAL, event.errno());
        assertEquals("RESET → RTS is not a transition of a RC QP (from RESET a QP can go to RESET, INIT)",
                event.reason());
        assertTrue(recorded(LabEvent.QpStateChange.class).isEmpty());

        // A bare STATE cannot carry INIT's required attributes either.
        assertFalse(client.requestState(QpState.INIT));
        assertEquals("missing: ACCESS_FLAGS, PKEY_INDEX, PORT",
                recorded(LabEvent.TransitionRefused.class).get(1).reason());
        assertEquals(QpState.RESET, client.resources().queuePair().orElseThrow().state());
    }

    @Test
    void rtsToErrFlushesThePendingReceiveAndErrToResetWorks() throws Exception {
        bothAtRts();
        client.resources().qp().postRecv(ReceiveWorkRequest.of(77, client.resources().mr().sge(0, 4)));

        assertTrue(client.requestState(QpState.ERR));

        assertEquals(QpState.ERR, client.resources().queuePair().orElseThrow().state());
        LabEvent.QpStateChange change = recorded(LabEvent.QpStateChange.class).get(0);
        assertEquals(new LabEvent.QpStateChange(LabEvent.Side.LOCAL, client.resources().queuePair().orElseThrow()
                .qpNum(),
                QpState.RTS, QpState.ERR), change);
        WorkCompletion flushed = client.resources().cq().pollOne(Duration.ofSeconds(5)).orElseThrow();
        assertEquals(77, flushed.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());

        assertTrue(client.requestState(QpState.RESET));
        assertEquals(QpState.RESET, client.resources().queuePair().orElseThrow().state());
        assertEquals(List.of(QpState.ERR, QpState.RESET),
                recorded(LabEvent.QpStateChange.class).stream().map(LabEvent.QpStateChange::to).toList());
        assertTrue(recorded(LabEvent.TransitionRefused.class).isEmpty());
    }

    @Test
    void afterAMoveByHandTheNextStepFailsWithTheKernelsReason() throws Exception {
        int udpPort = Ports.freeUdpPort();
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(10));
        server = session(Role.SERVER, "127.0.0.1", udpPort, links[0]);
        client = session(Role.CLIENT, "127.0.0.2", udpPort, links[1]);
        CompletableFuture<Void> serverRun = CompletableFuture.runAsync(() -> runThrough(server, "exchange"));
        runThrough(client, "exchange");
        serverRun.get(30, TimeUnit.SECONDS);
        assertFalse(client.requestState(QpState.ERR), "RESET → ERR is not a transition");

        runThrough(client, "modify-init");
        assertTrue(client.requestState(QpState.ERR));
        StepResult rtr = client.runNext().orElseThrow();

        assertFalse(rtr.ok());
        assertTrue(rtr.summary().contains("ERR → RTR is not a transition"), rtr.summary());
        Diagnosis diagnosis = rtr.diagnosis().orElseThrow();
        assertEquals("", diagnosis.parameter());
        assertTrue(diagnosis.explanation().endsWith("reset to replay the steps"), diagnosis.explanation());
        assertTrue(diagnosis.fix().isEmpty());
    }
}
