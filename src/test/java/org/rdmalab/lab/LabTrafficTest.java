package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/** Traffic after the seed's steps: both peers on soft0 over real UDP, in memory for the control plane. */
@Timeout(60)
class LabTrafficTest {

    private static final Duration POLL = Duration.ofSeconds(5);
    private static final String ACCESS = "LOCAL_WRITE,REMOTE_READ,REMOTE_WRITE,REMOTE_ATOMIC";

    private LabSession server;
    private LabSession client;
    private final List<LabEvent> serverEvents = Collections.synchronizedList(new ArrayList<>());
    private final List<LabEvent> clientEvents = Collections.synchronizedList(new ArrayList<>());

    private static LabSession session(Role role, String address, int udpPort, PeerLink link) {
        DeviceOptions options = DeviceOptions.defaults().withAddress(DeviceOptions.parseAddress(address))
                .withUdpPort(udpPort);
        List<Step> steps = Flows.seed(role, Flows.SeedFlow.WRITE_ONLY, Flows.Settings.seed("soft0"));
        for (Step step : steps) {
            if (step.id().equals("reg-mr")) {
                step.parameter("size").set("64");
                step.parameter("mr_flags").set(ACCESS);
            } else if (step.id().equals("create-cq")) {
                step.parameter("cq_size").set("16");
            } else if (step.id().equals("create-qp")) {
                step.parameter("max_send_wr").set("4");
                step.parameter("max_recv_wr").set("4");
            } else if (step.id().equals("modify-init")) {
                step.parameter("qp_access_flags").set(ACCESS);
            }
        }
        return new LabSession(role, Backends.installed(), options, link, steps);
    }

    /** Runs a session's steps up to and including sync 'Q' (both QPs in RTS). */
    private static boolean runToRts(LabSession session) {
        while (session.nextStep().isPresent()) {
            String id = session.nextStep().get().id();
            if (!session.runNext().orElseThrow().ok()) {
                return false;
            }
            if (id.equals("sync-q")) {
                return true;
            }
        }
        return false;
    }

    @BeforeEach
    void bothInRts() throws Exception {
        int udpPort = Ports.freeUdpPort();
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(10));
        server = session(Role.SERVER, "127.0.0.1", udpPort, links[0]);
        client = session(Role.CLIENT, "127.0.0.2", udpPort, links[1]);
        server.addListener(serverEvents::add);
        client.addListener(clientEvents::add);
        CompletableFuture<Boolean> serverRun = CompletableFuture.supplyAsync(() -> runToRts(server));
        assertTrue(runToRts(client), "client did not reach RTS");
        assertTrue(serverRun.get(30, TimeUnit.SECONDS), "server did not reach RTS");
        serverEvents.clear();
        clientEvents.clear();
    }

    @AfterEach
    void closeBoth() {
        client.close();
        server.close();
    }

    private static <T extends LabEvent> List<T> events(List<LabEvent> events, Class<T> type) {
        synchronized (events) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void rdmaWriteOfTypedTextLandsInThePeersBuffer() throws Exception {
        TrafficRequest write = new TrafficRequest(WrOpcode.RDMA_WRITE, 7, 16, 11, 4,
                TrafficRequest.parseText("HelloWorld\\0"), 0, true, 0, 0);
        StepResult posted = client.traffic().postSend(write);
        assertTrue(posted.ok(), posted.summary());

        List<WorkCompletion> completions = client.traffic().pollCompletions(POLL, 4);
        assertEquals(1, completions.size());
        assertEquals(WcStatus.SUCCESS, completions.get(0).status());
        assertEquals(7, completions.get(0).wrId());
        assertArrayEquals(bytes("HelloWorld\0"), server.resources().memoryRegion().orElseThrow().read(4, 11));

        LabEvent.Completion event = events(clientEvents, LabEvent.Completion.class).get(0);
        assertEquals(completions.get(0), event.completion());
        assertTrue(event.elapsedNanos() > 0, "elapsed " + event.elapsedNanos());
        assertEquals(List.of(new LabEvent.BufferChanged(LabEvent.Side.LOCAL, 16, 11,
                "local write before IBV_WR_RDMA_WRITE")), events(clientEvents, LabEvent.BufferChanged.class));
        LabEvent.VerbCall call = events(clientEvents, LabEvent.VerbCall.class).get(0);
        assertEquals("ibv_post_send", call.verb());
        assertTrue(call.ok());
        assertNull(call.errno());
        long remote = client.resources().remoteData().orElseThrow().addr() + 4;
        assertTrue(call.arguments().contains("wr_id 7, opcode IBV_WR_RDMA_WRITE, send_flags IBV_SEND_SIGNALED"),
                call.arguments());
        assertTrue(call.arguments().contains(String.format("remote_addr 0x%x", remote)), call.arguments());
        assertTrue(call.arguments().contains("length 11"), call.arguments());
    }

    @Test
    void rdmaReadBringsThePeersBytesAndLabelsThem() throws Exception {
        server.resources().memoryRegion().orElseThrow().write(8, bytes("ServerData"));
        assertTrue(client.traffic().postSend(TrafficRequest.of(WrOpcode.RDMA_READ, 3, 0, 10, 8)).ok());
        List<WorkCompletion> completions = client.traffic().pollCompletions(POLL, 1);
        assertEquals(WcOpcode.RDMA_READ, completions.get(0).opcode());
        assertArrayEquals(bytes("ServerData"), client.resources().memoryRegion().orElseThrow().read(0, 10));

        List<LabEvent.RemoteBuffer> views = events(clientEvents, LabEvent.RemoteBuffer.class);
        assertEquals(1, views.size());
        assertEquals("RDMA READ", views.get(0).source());
        assertEquals(8, views.get(0).offset());
        assertArrayEquals(bytes("ServerData"), views.get(0).bytes());
        assertEquals(List.of(new LabEvent.BufferChanged(LabEvent.Side.LOCAL, 0, 10, "RDMA READ result")),
                events(clientEvents, LabEvent.BufferChanged.class));
    }

    @Test
    void theSessionTellsAViewWhatExistsAndWhatCrossedTheWire() {
        assertEquals("memory", client.resources().protocol());
        assertTrue(client.resources().isConnected());
        assertTrue(client.resources().port().isPresent() && client.resources().protectionDomain().isPresent()
                && client.resources().completionQueue().isPresent() && client.resources().gidEntry().isPresent());
        WireImage local = client.resources().localWire().orElseThrow();
        assertEquals("memory (seed layout)", local.protocol());
        assertArrayEquals(org.rdmalab.control.seed.SeedBlock.from(client.resources().localData().orElseThrow())
                .serialize(),
                local.bytes());
        assertArrayEquals(server.resources().localWire().orElseThrow().bytes(), client.resources().remoteWire()
                .orElseThrow().bytes());
        assertEquals(String.format("0x%08x", client.resources().queuePair().orElseThrow().qpNum()),
                local.fields().get(2).value());
    }

    @Test
    void sendMeetsAPostedReceive() throws Exception {
        StepResult receive = server.traffic().postReceive(21, 32, 16);
        assertTrue(receive.ok(), receive.summary());
        TrafficRequest send = new TrafficRequest(WrOpcode.SEND_WITH_IMM, 22, 0, 5, 0, TrafficRequest.parseHex("48 65 6c 6c 6f"),
                0x1234, true, 0, 0);
        assertTrue(client.traffic().postSend(send).ok());
        assertEquals(WcStatus.SUCCESS, client.traffic().pollCompletions(POLL, 1).get(0).status());
        WorkCompletion received = server.traffic().pollCompletions(POLL, 1).get(0);
        assertEquals(21, received.wrId());
        assertEquals(WcOpcode.RECV, received.opcode());
        assertEquals(0x1234, received.immData());
        assertArrayEquals(bytes("Hello"), server.resources().memoryRegion().orElseThrow().read(32, 5));
        assertEquals(List.of(new LabEvent.BufferChanged(LabEvent.Side.LOCAL, 32, 5, "received SEND")),
                events(serverEvents, LabEvent.BufferChanged.class));
        assertTrue(events(serverEvents, LabEvent.Completion.class).get(0).elapsedNanos() > 0);
        LabEvent.VerbCall post = events(serverEvents, LabEvent.VerbCall.class).get(0);
        assertEquals("ibv_post_recv", post.verb());
        assertTrue(post.arguments().contains("wr_id 21"), post.arguments());
    }

    @Test
    void atomicsReturnTheOldValueIntoTheLocalBuffer() throws Exception {
        ByteBuffer word = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(40);
        server.resources().memoryRegion().orElseThrow().write(0, word.array());
        TrafficRequest add = new TrafficRequest(WrOpcode.ATOMIC_FETCH_AND_ADD, 1, 8, 8, 0, null, 0, true, 2, 0);
        assertTrue(client.traffic().postSend(add).ok());
        assertEquals(WcStatus.SUCCESS, client.traffic().pollCompletions(POLL, 1).get(0).status());
        TrafficRequest swap = new TrafficRequest(WrOpcode.ATOMIC_CMP_AND_SWP, 2, 16, 8, 0, null, 0, true, 42, 7);
        assertTrue(client.traffic().postSend(swap).ok());
        assertEquals(WcStatus.SUCCESS, client.traffic().pollCompletions(POLL, 1).get(0).status());

        ByteBuffer local = ByteBuffer.wrap(client.resources().memoryRegion().orElseThrow().read(8, 16))
                .order(ByteOrder.nativeOrder());
        assertEquals(40, local.getLong(0), "fetch-and-add returns the old value");
        assertEquals(42, local.getLong(8), "compare-and-swap returns the old value");
        assertEquals(7, ByteBuffer.wrap(server.resources().memoryRegion().orElseThrow().read(0, 8)).order(ByteOrder
                .nativeOrder())
                .getLong());
        List<LabEvent.BufferChanged> changes = events(clientEvents, LabEvent.BufferChanged.class);
        assertEquals(List.of(8L, 16L), changes.stream().map(LabEvent.BufferChanged::offset).toList());
    }

    @Test
    void pollingDrainsWhatIsThereUpToMax() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertTrue(client.traffic().postSend(TrafficRequest.of(WrOpcode.RDMA_WRITE, 100 + i, 0, 4, 0)).ok());
        }
        List<WorkCompletion> all = new ArrayList<>();
        long deadline = System.nanoTime() + POLL.toNanos();
        while (all.size() < 3 && System.nanoTime() < deadline) {
            all.addAll(client.traffic().pollCompletions(POLL, 2));
        }
        assertEquals(List.of(100L, 101L, 102L), all.stream().map(WorkCompletion::wrId).toList());
        assertTrue(client.traffic().pollCompletions(Duration.ofMillis(50), 2).isEmpty(), "nothing left");
    }

    @Test
    void postsOutsideTheBufferOrWithoutAQpAreBlockedWithTheReason() {
        // An SGE longer than the buffer cannot be built: the session says so before the verb.
        StepResult outside = client.traffic().postSend(TrafficRequest.of(WrOpcode.RDMA_WRITE, 1, 60, 8, 0));
        assertFalse(outside.ok());
        assertEquals("cannot post: local range 60+8 is outside the 64-byte buffer", outside.summary());
        // Without a QP the traffic form is blocked with the reason.
        client.reset();
        StepResult blocked = client.traffic().postSend(TrafficRequest.of(WrOpcode.RDMA_WRITE, 1, 0, 8, 0));
        assertEquals("cannot post: create the QP first", blocked.summary());
        assertEquals("cannot post: create the QP first", client.traffic().postReceive(1, 0, 8).summary());
    }

    @Test
    void theSeedStepsPostsAndPollsCarryTheElapsedTimeAndArguments() {
        // The steps after sync 'Q': write the buffer, post the WRITE, poll.
        List<LabEvent.Completion> completions = new ArrayList<>();
        client.addListener(event -> {
            if (event instanceof LabEvent.Completion completion) {
                completions.add(completion);
            }
        });
        for (int i = 0; i < 3; i++) {
            assertTrue(client.runNext().orElseThrow().ok());
        }
        assertEquals(1, completions.size());
        assertEquals(WcOpcode.RDMA_WRITE, completions.get(0).completion().opcode());
        assertTrue(completions.get(0).elapsedNanos() > 0);
        LabEvent.VerbCall post = events(clientEvents, LabEvent.VerbCall.class).stream()
                .filter(call -> call.verb().equals("ibv_post_send")).findFirst().orElseThrow();
        assertTrue(post.arguments().startsWith(String.format("qp 0x%x, {wr_id 0, opcode IBV_WR_RDMA_WRITE",
                client.resources().queuePair().orElseThrow().qpNum())), post.arguments());
    }
}
