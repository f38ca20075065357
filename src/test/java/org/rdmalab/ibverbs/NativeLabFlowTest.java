package org.rdmalab.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import jnr.ffi.LibraryLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.lab.Diagnosis;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.PeerLink;
import org.rdmalab.lab.PeerLinks;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.StepResult;
import org.rdmalab.lab.TwoSides;
import org.rdmalab.testing.StandInVerbs;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The seed's demo flow, unchanged, on the native backend: both peers open the stand-in's rxe0 in
 * one process (its QPs reach each other in-process), so every verb the demo calls goes through
 * jnr-ffi and jffi into C code compiled from the real header.
 */
class NativeLabFlowTest {

    @Test
    void theSeedsRcExampleRunsOnANativeDevice(@TempDir Path dir) throws Exception {
        Path library = StandInVerbs.build(dir);
        StandInControl standIn = LibraryLoader.create(StandInControl.class).failImmediately().load(library.toString());
        Backends backends = new Backends(List.of(new NativeProvider(library.toString())));
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(10));
        List<LabEvent> serverEvents = Collections.synchronizedList(new ArrayList<>());
        List<LabEvent> clientEvents = Collections.synchronizedList(new ArrayList<>());
        try (LabSession server = new LabSession(Role.SERVER, backends, DeviceOptions.defaults(), links[0],
                     Flows.seed(Role.SERVER, Flows.SeedFlow.RC_EXAMPLE, Flows.Settings.seed("rxe0")));
             LabSession client = new LabSession(Role.CLIENT, backends, DeviceOptions.defaults(), links[1],
                     Flows.seed(Role.CLIENT, Flows.SeedFlow.RC_EXAMPLE, Flows.Settings.seed("rxe0")))) {
            server.addListener(serverEvents::add);
            client.addListener(clientEvents::add);
            TwoSides.runToEnd(server, client, Duration.ofSeconds(30));

            List<String> clientLines = output(clientEvents);
            assertTrue(clientLines.contains("Message is: 'ServerSend'"), clientLines.toString());
            assertTrue(clientLines.contains("Contents of server's buffer: 'ServerSend'"), clientLines.toString());
            assertTrue(output(serverEvents).contains("Contents of server buffer: 'HelloWorld'"),
                    output(serverEvents).toString());
            List<LabEvent.Completion> completions = completions(clientEvents);
            assertEquals(List.of(WcOpcode.RECV, WcOpcode.RDMA_READ, WcOpcode.RDMA_WRITE),
                    completions.stream().map(c -> c.completion().opcode()).toList());
            assertTrue(completions.stream().allMatch(c -> c.completion().status() == WcStatus.SUCCESS));
        }
        assertEquals(0, standIn.standin_live_objects(), "both sessions freed every native object");
    }

    @Test
    void theSeedsGidIndexMinusOneIsDiagnosedOnANativeDeviceAsOnSoft0(@TempDir Path dir) throws Exception {
        Path library = StandInVerbs.build(dir);
        Backends backends = new Backends(List.of(new NativeProvider(library.toString())));
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(10));
        try (LabSession server = new LabSession(Role.SERVER, backends, DeviceOptions.defaults(), links[0],
                     Flows.seed(Role.SERVER, Flows.SeedFlow.WRITE_ONLY, Flows.Settings.seed("rxe0")));
             LabSession client = new LabSession(Role.CLIENT, backends, DeviceOptions.defaults(), links[1],
                     Flows.seed(Role.CLIENT, Flows.SeedFlow.WRITE_ONLY, Flows.Settings.seed("rxe0")))) {
            for (LabSession session : List.of(server, client)) {
                session.steps().stream().filter(step -> step.id().equals("query-port")).findFirst().orElseThrow()
                        .parameter("gid_idx").set("-1");
            }
            CompletableFuture<?> serverRun = CompletableFuture.runAsync(server::runToEnd);
            StepResult last = client.runToEnd().orElseThrow();
            serverRun.get(30, TimeUnit.SECONDS);

            assertTrue(last.summary().startsWith("ibv_modify_qp failed: EINVAL (22, Invalid argument)"), last.summary());
            Diagnosis diagnosis = last.diagnosis().orElseThrow(() -> new AssertionError(last.toString()));
            assertEquals("query-port", diagnosis.stepId());
            assertEquals("gid_idx", diagnosis.parameter());
            assertEquals(Errno.EINVAL, diagnosis.errno());
            assertTrue(diagnosis.explanation().contains("RoCE carries every packet in UDP/IP"), diagnosis.explanation());
            // The stand-in's table: 0 link-local v1, 1 link-local v2, 2 empty, 3 ::ffff:192.168.1.100 v2.
            assertEquals("3", diagnosis.fix().orElseThrow().value());
            assertTrue(diagnosis.fix().orElseThrow().label().startsWith("use GID 3 (::ffff:192.168.1.100, RoCE v2"),
                    diagnosis.fix().orElseThrow().label());
        }
    }

    private static List<String> output(List<LabEvent> events) {
        synchronized (events) {
            return events.stream().filter(e -> e instanceof LabEvent.Output).map(e -> ((LabEvent.Output) e).text())
                    .toList();
        }
    }

    private static List<LabEvent.Completion> completions(List<LabEvent> events) {
        synchronized (events) {
            return events.stream().filter(e -> e instanceof LabEvent.Completion).map(e -> (LabEvent.Completion) e)
                    .toList();
        }
    }
}
