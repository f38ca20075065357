package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/** Both peers of the seed's flow in one process, on two software devices over real UDP. */
class LabSessionTest {

    private record Peer(LabSession session, List<LabEvent> events) {
    }

    private static Peer peer(Role role, String address, int udpPort, PeerLink link, List<Step> steps) {
        DeviceOptions options = DeviceOptions.defaults().withAddress(DeviceOptions.parseAddress(address))
                .withUdpPort(udpPort);
        LabSession session = new LabSession(role, Backends.installed(), options, link, steps);
        List<LabEvent> events = Collections.synchronizedList(new ArrayList<>());
        session.addListener(events::add);
        return new Peer(session, events);
    }

    private static Peer[] runBoth(Flows.SeedFlow flow) throws Exception {
        int udpPort = Ports.freeUdpPort();
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(10));
        Peer server = peer(Role.SERVER, "127.0.0.1", udpPort, links[0],
                Flows.seed(Role.SERVER, flow, Flows.Settings.seed("soft0")));
        Peer client = peer(Role.CLIENT, "127.0.0.2", udpPort, links[1],
                Flows.seed(Role.CLIENT, flow, Flows.Settings.seed("soft0")));
        CompletableFuture<Boolean> serverRun = CompletableFuture.supplyAsync(() -> {
            server.session().runToEnd();
            return server.session().finished();
        });
        client.session().runToEnd();
        assertTrue(serverRun.get(30, TimeUnit.SECONDS), () -> "server: " + failure(server));
        assertTrue(client.session().finished(), () -> "client: " + failure(client));
        return new Peer[] {server, client};
    }

    private static String failure(Peer peer) {
        return peer.session().steps().stream().filter(step -> step.status() == Step.Status.FAILED)
                .map(step -> step.title() + ": " + step.result().orElseThrow().summary()).findFirst().orElse("none");
    }

    private static List<String> output(Peer peer) {
        List<String> lines = new ArrayList<>();
        synchronized (peer.events()) {
            for (LabEvent event : peer.events()) {
                if (event instanceof LabEvent.Output output) {
                    lines.add(output.text());
                }
            }
        }
        return lines;
    }

    @Test
    void rcExampleFlowSendsReadsAndWrites() throws Exception {
        Peer[] peers = runBoth(Flows.SeedFlow.RC_EXAMPLE);
        Peer server = peers[0];
        Peer client = peers[1];

        List<String> clientLines = output(client);
        assertTrue(clientLines.contains("Message is: 'ServerSend'"), clientLines.toString());
        assertTrue(clientLines.contains("Contents of server's buffer: 'ServerSend'"), clientLines.toString());
        List<String> serverLines = output(server);
        assertTrue(serverLines.contains("Contents of server buffer: 'HelloWorld'"), serverLines.toString());

        List<WcOpcode> clientCompletions = completions(client).stream().map(c -> c.completion().opcode()).toList();
        assertEquals(List.of(WcOpcode.RECV, WcOpcode.RDMA_READ, WcOpcode.RDMA_WRITE), clientCompletions);
        assertTrue(completions(client).stream().allMatch(c -> c.completion().status() == WcStatus.SUCCESS));
        assertEquals(List.of(WcOpcode.SEND), completions(server).stream().map(c -> c.completion().opcode()).toList());
    }

    @Test
    void serverBufferHoldsHelloWorldOnlyAfterTheClientsWrite() throws Exception {
        Peer[] peers = runBoth(Flows.SeedFlow.WRITE_ONLY);
        Peer server = peers[0];
        // Every buffer snapshot the server printed before the final one, and the final one.
        assertEquals(List.of("Contents of server buffer: 'HelloWorld'"),
                output(server).stream().filter(line -> line.startsWith("Contents")).toList());
        // The server's MR starts zeroed in this flow: its registration reported no initial text.
        Step register = server.session().steps().stream().filter(step -> step.id().equals("reg-mr")).findFirst()
                .orElseThrow();
        assertEquals("", register.parameter("initial").value());
        assertTrue(register.cCode(server.session()).contains("memset(res->buf, 0x0, size);"));
    }

    @Test
    void qpStateEventsFollowResetInitRtrRts() throws Exception {
        Peer[] peers = runBoth(Flows.SeedFlow.WRITE_ONLY);
        for (Peer peer : peers) {
            List<QpState> states = new ArrayList<>();
            synchronized (peer.events()) {
                for (LabEvent event : peer.events()) {
                    if (event instanceof LabEvent.QpStateChange change && change.side() == LabEvent.Side.LOCAL) {
                        states.add(change.to());
                    }
                }
            }
            assertEquals(List.of(QpState.INIT, QpState.RTR, QpState.RTS), states);
        }
    }

    @Test
    void aStepThatCannotRunYetSaysWhy() {
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(1));
        List<Step> steps = List.of(new ResourceSteps.AllocatePd());
        try (LabSession session = new LabSession(Role.CLIENT, Backends.installed(), DeviceOptions.defaults(),
                links[0], steps)) {
            StepResult result = session.runNext().orElseThrow();
            assertFalse(result.ok());
            assertEquals("cannot run yet: open the device first", result.summary());
            assertEquals(Step.Status.FAILED, steps.get(0).status());
        }
    }

    @Test
    void resetReleasesEverythingAndKeepsTheEditedParameters() throws Exception {
        int udpPort = Ports.freeUdpPort();
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(1));
        Peer client = peer(Role.CLIENT, "127.0.0.2", udpPort, links[1],
                Flows.seed(Role.CLIENT, Flows.SeedFlow.WRITE_ONLY, Flows.Settings.seed("soft0")));
        LabSession session = client.session();
        Step createCq = session.steps().get(3);
        createCq.parameter("cq_size").set("16");
        for (int i = 0; i < 6; i++) {
            assertTrue(session.runNext().orElseThrow().ok(), session.steps().get(i).title());
        }
        assertTrue(session.resources().queuePair().isPresent());
        org.rdmalab.verbs.Context context = session.resources().context().orElseThrow();

        session.reset();

        assertTrue(session.resources().context().isEmpty() && session.resources().queuePair().isEmpty() && session
                .resources().memoryRegion().isEmpty());
        assertTrue(session.steps().stream().allMatch(step -> step.status() == Step.Status.PENDING));
        assertEquals("16", createCq.parameter("cq_size").value());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, context::queryDevice,
                "the old context is closed");
        assertEquals("Open device", session.nextStep().orElseThrow().title());
        for (int i = 0; i < 4; i++) {
            assertTrue(session.runNext().orElseThrow().ok());
        }
        assertEquals("cq with 31 entries", createCq.result().orElseThrow().summary(), "soft0 grants 16 as 31, as rxe");
        session.close();
    }

    @Test
    void cCodeFollowsTheParameters() {
        List<Step> steps = Flows.seed(Role.CLIENT, Flows.SeedFlow.RC_EXAMPLE, Flows.Settings.seed("soft0"));
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(1));
        try (LabSession session = new LabSession(Role.CLIENT, Backends.installed(), DeviceOptions.defaults(), links[0],
                steps)) {
            Step rtr = steps.stream().filter(step -> step.id().equals("modify-rtr")).findFirst().orElseThrow();
            assertTrue(rtr.cCode(session).contains("attr.path_mtu = IBV_MTU_256;"), rtr.cCode(session));
            assertTrue(rtr.cCode(session).contains("attr.min_rnr_timer = 0x12;"));
            rtr.parameter("path_mtu").set("1024");
            rtr.parameter("flags").set("STATE,AV,PATH_MTU");
            assertTrue(rtr.cCode(session).contains("attr.path_mtu = IBV_MTU_1024;"));
            assertTrue(rtr.cCode(session).contains("flags = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU;"));
            Step rts = steps.stream().filter(step -> step.id().equals("modify-rts")).findFirst().orElseThrow();
            assertTrue(rts.cCode(session).contains("attr.retry_cnt = 6;"));
            assertTrue(rts.cCode(session).contains("attr.timeout = 0x12;"));
        }
    }

    @Test
    void parametersRejectBadValuesWithTheirName() {
        Parameter timer = Parameter.hex("min_rnr_timer", "", 0x12, 0, 31);
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> timer.set("0x40"));
        assertEquals("min_rnr_timer: 0x40 is outside 0x0..0x1f", e.getMessage());
        assertEquals("0x12", timer.value());
        timer.set("7");
        assertEquals(7, timer.asInt());
    }

    @Test
    void droppingAnRtrAttributeFailsWithTheExplanation() throws Exception {
        int udpPort = Ports.freeUdpPort();
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(10));
        Peer server = peer(Role.SERVER, "127.0.0.1", udpPort, links[0],
                Flows.seed(Role.SERVER, Flows.SeedFlow.WRITE_ONLY, Flows.Settings.seed("soft0")));
        Peer client = peer(Role.CLIENT, "127.0.0.2", udpPort, links[1],
                Flows.seed(Role.CLIENT, Flows.SeedFlow.WRITE_ONLY, Flows.Settings.seed("soft0")));
        CompletableFuture<Void> serverRun = CompletableFuture.runAsync(() -> server.session().runToEnd());
        Step rtr = client.session().steps().stream().filter(step -> step.id().equals("modify-rtr")).findFirst()
                .orElseThrow();
        rtr.parameter("flags").set("STATE,AV,PATH_MTU,MAX_DEST_RD_ATOMIC,MIN_RNR_TIMER");
        StepResult last = client.session().runToEnd().orElseThrow();
        assertFalse(last.ok());
        assertEquals(Step.Status.FAILED, rtr.status());
        assertTrue(last.summary().startsWith("ibv_modify_qp failed: EINVAL (22, Invalid argument)"),
                last.summary());
        assertTrue(last.summary().contains("DEST_QPN"), last.summary());
        assertTrue(last.summary().contains("RQ_PSN"), last.summary());
        // Fix the mask and go on: the session resumes at the failed step.
        rtr.parameter("flags").set(rtr.parameter("flags").defaultValue());
        client.session().runToEnd();
        assertTrue(client.session().finished(), failure(client));
        serverRun.get(30, TimeUnit.SECONDS);
        assertTrue(server.session().finished(), failure(server));
        client.session().close();
        server.session().close();
    }

    private static List<LabEvent.Completion> completions(Peer peer) {
        List<LabEvent.Completion> found = new ArrayList<>();
        synchronized (peer.events()) {
            for (LabEvent event : peer.events()) {
                if (event instanceof LabEvent.Completion completion) {
                    found.add(completion);
                }
            }
        }
        return found;
    }
}
