package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rdmalab.control.Timeouts;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/** A failed step is explained at the parameter that caused it, with the fix, on two soft0 peers. */
class DiagnosisTest {

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

    private void pair() {
        int udpPort = Ports.freeUdpPort();
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(10));
        server = session(Role.SERVER, "127.0.0.1", udpPort, links[0]);
        client = session(Role.CLIENT, "127.0.0.2", udpPort, links[1]);
    }

    private static Step step(LabSession session, String id) {
        return session.steps().stream().filter(step -> step.id().equals(id)).findFirst().orElseThrow();
    }

    /** Sets {@code parameter} of {@code id} on both peers. */
    private void setBoth(String id, String parameter, String value) {
        step(server, id).parameter(parameter).set(value);
        step(client, id).parameter(parameter).set(value);
    }

    /** Runs both peers until each stops; returns the client's last result. */
    private StepResult runBoth() throws Exception {
        CompletableFuture<Optional<StepResult>> serverRun = CompletableFuture.supplyAsync(server::runToEnd);
        StepResult last = client.runToEnd().orElseThrow();
        serverRun.get(30, TimeUnit.SECONDS);
        return last;
    }

    private static void apply(LabSession session, Diagnosis.Fix fix) {
        step(session, fix.stepId()).parameter(fix.parameter()).set(fix.value());
    }

    @Test
    void aMaskWithoutDestQpnIsBlamedOnFlagsAndTheFixAddsIt() throws Exception {
        pair();
        setBoth("modify-rtr", "flags", "STATE,AV,PATH_MTU,RQ_PSN,MAX_DEST_RD_ATOMIC,MIN_RNR_TIMER");
        StepResult last = runBoth();
        assertFalse(last.ok());
        Diagnosis diagnosis = last.diagnosis().orElseThrow(() -> new AssertionError(last.toString()));
        assertEquals("modify-rtr", diagnosis.stepId());
        assertEquals("flags", diagnosis.parameter());
        assertEquals(Errno.EINVAL, diagnosis.errno());
        assertEquals("missing: DEST_QPN", diagnosis.explanation());
        Diagnosis.Fix fix = diagnosis.fix().orElseThrow();
        assertEquals(step(client, "modify-rtr").parameter("flags").defaultValue(), fix.value());
        assertTrue(fix.value().contains("DEST_QPN"), fix.value());
        assertEquals("add DEST_QPN to the mask", fix.label());
        assertEquals("modify-rtr.flags: EINVAL (Invalid argument): missing: DEST_QPN — fix: flags = "
                + fix.value() + " (add DEST_QPN to the mask)", diagnosis.toString());

        // The fix needs no new exchange: both sides run on from the failed step.
        apply(client, fix);
        apply(server, server.steps().stream().filter(s -> s.id().equals("modify-rtr")).findFirst().orElseThrow()
                .result().orElseThrow().diagnosis().orElseThrow().fix().orElseThrow());
        runBoth();
        assertTrue(client.finished() && server.finished());
    }

    @Test
    void gidIndexMinusOneFailsRtrAndIsBlamedOnQueryPortWithTheRecommendedGid() throws Exception {
        pair();
        setBoth("query-port", "gid_idx", "-1");
        StepResult last = runBoth();
        assertFalse(last.ok());
        assertEquals(Step.Status.FAILED, step(client, "modify-rtr").status());
        // What soft0 itself says: the same rule as Linux's rdma_check_ah_attr (EINVAL for a RoCE AV without GRH).
        assertTrue(last.summary().startsWith("ibv_modify_qp failed: EINVAL (22, Invalid argument): ah_attr.is_global "
                + "is 0, but RoCE routes by GID"), last.summary());
        Diagnosis diagnosis = last.diagnosis().orElseThrow();
        assertEquals("query-port", diagnosis.stepId());
        assertEquals("gid_idx", diagnosis.parameter());
        assertEquals(Errno.EINVAL, diagnosis.errno());
        assertTrue(diagnosis.explanation().contains("RoCE carries every packet in UDP/IP"), diagnosis.explanation());
        assertTrue(diagnosis.explanation().contains("is_global = 1"), diagnosis.explanation());
        assertTrue(diagnosis.explanation().contains("sgid_index"), diagnosis.explanation());
        Diagnosis.Fix fix = diagnosis.fix().orElseThrow();
        assertEquals(List.of("query-port", "gid_idx", "3", "use GID 3 (::ffff:127.0.0.2, RoCE v2, the recommended entry)"),
                List.of(fix.stepId(), fix.parameter(), fix.value(), fix.label()));

        // One click: set the GID, reset (a new GID must be exchanged again) and replay.
        apply(client, fix);
        apply(server, step(server, "modify-rtr").result().orElseThrow().diagnosis().orElseThrow().fix().orElseThrow());
        assertEquals("3", step(server, "query-port").parameter("gid_idx").value());
        client.reset();
        server.reset();
        runBoth();
        assertTrue(client.finished(), () -> client.steps().toString());
        assertTrue(server.finished());
    }

    @Test
    void aPathMtuAboveTheActiveMtuIsBlamedOnPathMtuWithTheActiveOneAsFix() throws Exception {
        pair();
        setBoth("modify-rtr", "path_mtu", "4096");
        StepResult last = runBoth();
        Diagnosis diagnosis = last.diagnosis().orElseThrow(() -> new AssertionError(last.toString()));
        assertEquals("modify-rtr", diagnosis.stepId());
        assertEquals("path_mtu", diagnosis.parameter());
        assertEquals(Errno.EINVAL, diagnosis.errno());
        assertTrue(diagnosis.explanation().startsWith("path_mtu 4096 is above the port's active MTU 1024"),
                diagnosis.explanation());
        Diagnosis.Fix fix = diagnosis.fix().orElseThrow();
        assertEquals(List.of("modify-rtr", "path_mtu", "1024", "use the active MTU 1024"),
                List.of(fix.stepId(), fix.parameter(), fix.value(), fix.label()));
    }

    @Test
    void aGidIndexOutsideTheTableOrEmptyIsBlamedOnGidIdx() throws Exception {
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(1));
        client = session(Role.CLIENT, "127.0.0.2", Ports.freeUdpPort(), links[1]);
        Step query = step(client, "query-port");
        assertTrue(client.runNext().orElseThrow().ok());

        query.parameter("gid_idx").set("5000");
        StepResult outside = client.runNext().orElseThrow();
        assertFalse(outside.ok());
        Diagnosis diagnosis = outside.diagnosis().orElseThrow(() -> new AssertionError(outside.toString()));
        assertEquals("gid_idx", diagnosis.parameter());
        assertEquals(Errno.EINVAL, diagnosis.errno());
        int last = client.resources().context().orElseThrow().queryPort(1).gidTableLength() - 1;
        assertEquals("GID index 5000 is outside port 1's GID table (0.." + last + ")", diagnosis.explanation());
        assertEquals("3", diagnosis.fix().orElseThrow().value());

        query.parameter("gid_idx").set("7");
        StepResult empty = client.runNext().orElseThrow();
        Diagnosis emptyDiagnosis = empty.diagnosis().orElseThrow(() -> new AssertionError(empty.toString()));
        assertEquals(Errno.ENODATA, emptyDiagnosis.errno());
        assertEquals("GID index 7 is an empty entry of port 1's GID table", emptyDiagnosis.explanation());

        apply(client, emptyDiagnosis.fix().orElseThrow());
        assertTrue(client.runNext().orElseThrow().ok());
        assertEquals(3, client.resources().gidEntry().orElseThrow().index());
    }

    @Test
    void aServerThatIsNotThereIsBlamedOnTheServerAddress() {
        int tcpPort = Ports.freeTcpPort();
        PeerLink link = PeerLinks.seed(new PeerLinks.Endpoint(Role.CLIENT, "127.0.0.2", "127.0.0.1", tcpPort,
                Timeouts.all(Duration.ofMillis(300))));
        client = new LabSession(Role.CLIENT, Backends.installed(), DeviceOptions.defaults(), link,
                List.of(new ConnectSteps.Connect()));
        StepResult result = client.runNext().orElseThrow();
        assertFalse(result.ok());
        Diagnosis diagnosis = result.diagnosis().orElseThrow(() -> new AssertionError(result.toString()));
        assertEquals("connect", diagnosis.stepId());
        assertEquals("server_ip", diagnosis.parameter());
        assertEquals(Errno.ECONNREFUSED, diagnosis.errno());
        assertTrue(diagnosis.explanation().startsWith("nothing listens on 127.0.0.1:" + tcpPort), diagnosis.explanation());
        assertTrue(diagnosis.explanation().contains("start the server there first (rdma-lab demo 127.0.0.1 <device>"
                + " --tcp-port " + tcpPort + ")"), diagnosis.explanation());
        assertTrue(diagnosis.fix().isEmpty());
    }

    @Test
    void aStepThatIsOnlyBlockedHasNoDiagnosis() {
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(1));
        client = new LabSession(Role.CLIENT, Backends.installed(), DeviceOptions.defaults(), links[1],
                List.of(new ResourceSteps.AllocatePd()));
        StepResult result = client.runNext().orElseThrow();
        assertFalse(result.ok());
        assertTrue(result.diagnosis().isEmpty());
    }

    @Test
    void anAttributeTheTransitionDoesNotTakeIsBlamedOnFlagsAndTheFixDropsIt() throws Exception {
        pair();
        String defaults = step(client, "modify-rtr").parameter("flags").defaultValue();
        setBoth("modify-rtr", "flags", defaults + ",SQ_PSN");
        StepResult last = runBoth();
        Diagnosis diagnosis = last.diagnosis().orElseThrow(() -> new AssertionError(last.toString()));
        assertEquals(List.of("modify-rtr", "flags"), List.of(diagnosis.stepId(), diagnosis.parameter()));
        assertEquals(Errno.EINVAL, diagnosis.errno());
        assertTrue(diagnosis.explanation().contains("SQ_PSN"), diagnosis.explanation());
        Diagnosis.Fix fix = diagnosis.fix().orElseThrow();
        assertEquals(defaults, fix.value());
        assertEquals("drop SQ_PSN from the mask", fix.label());
    }

    @Test
    void aLinkLocalSourceGidIsBlamedOnQueryPortWithWhatSoft0SaidAndTheRecommendedGid() throws Exception {
        pair();
        setBoth("query-port", "gid_idx", "1");
        StepResult last = runBoth();
        assertEquals(Step.Status.FAILED, step(client, "modify-rtr").status());
        Diagnosis diagnosis = last.diagnosis().orElseThrow(() -> new AssertionError(last.toString()));
        assertEquals(List.of("query-port", "gid_idx"), List.of(diagnosis.stepId(), diagnosis.parameter()));
        assertTrue(diagnosis.explanation().startsWith("grh.sgid_index 1 is "), diagnosis.explanation());
        assertEquals("3", diagnosis.fix().orElseThrow().value());
    }
}
