package org.rdmalab.ibverbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import jnr.ffi.LibraryLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.testing.StandInVerbs;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.CompletionChannel;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.DeviceAttributes;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.GidType;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.LinkLayer;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.PortAttributes;
import org.rdmalab.verbs.PortState;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpInitAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcFlag;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;
import org.rdmalab.verbs.spi.DeviceOptions;

/** The native backend opened on the stand-in: what a user of the verbs API would notice. */
class NativeContextTest {

    private static final int RW = AccessFlag.LOCAL_WRITE.value() | AccessFlag.REMOTE_WRITE.value()
            | AccessFlag.REMOTE_READ.value();
    private static final int SIGNALED = SendFlag.SIGNALED.value();

    @TempDir
    static Path dir;
    private static Path library;
    private static StandInControl standIn;
    private Context context;

    @BeforeAll
    static void buildStandIn() throws Exception {
        library = StandInVerbs.build(dir);
        standIn = LibraryLoader.create(StandInControl.class).failImmediately().load(library.toString());
    }

    @BeforeEach
    void open() throws Exception {
        assertEquals(0, standIn.standin_live_objects(), "a previous test left stand-in objects alive");
        context = new NativeProvider(library.toString()).devices(DeviceOptions.defaults()).get(0).open();
    }

    @AfterEach
    void close() {
        context.close();
        assertEquals(0, standIn.standin_live_objects(), "closing the context freed every child");
    }

    @Test
    void queriesTheDeviceItsPortAndItsGidTable() throws Exception {
        assertEquals("rxe0", context.device().name());
        DeviceAttributes device = context.queryDevice();
        assertEquals("44.0.0", device.firmwareVersion());
        assertEquals("0200:7fff:fe00:0001", device.nodeGuidText());
        assertEquals(256, device.maxCqe());
        assertEquals(1, device.physPortCount());

        PortAttributes port = context.queryPort(1);
        assertEquals(PortState.ACTIVE, port.state());
        assertEquals(Mtu.MTU_4096, port.maxMtu());
        assertEquals(Mtu.MTU_1024, port.activeMtu());
        assertEquals(4, port.gidTableLength());
        assertEquals(0x80000000L, port.maxMessageSize());
        assertEquals(LinkLayer.ETHERNET, port.linkLayer());
        assertEquals("LINK_UP", port.physStateText());

        List<GidEntry> table = context.gidTable(1);
        assertEquals(List.of(0, 1, 3), table.stream().map(GidEntry::index).toList());
        assertEquals(List.of(GidType.ROCE_V1, GidType.ROCE_V2, GidType.ROCE_V2),
                table.stream().map(GidEntry::type).toList());
        assertEquals(Gid.parse("fe80::ff:fe00:1"), table.get(0).gid());
        assertEquals(Gid.parse("::ffff:192.168.1.100"), table.get(2).gid());
        assertEquals("192.168.1.100", table.get(2).ipAddress());
        assertEquals(1, table.get(2).port());
        assertEquals("lo", table.get(2).netdev(), "ifindex 1 is the loopback netdev");

        VerbsException empty = assertThrows(VerbsException.class, () -> context.queryGidEntry(1, 2));
        assertEquals(Errno.ENODATA, empty.errno());
        assertEquals("ibv_query_gid_ex", empty.verb());
        assertTrue(empty.getMessage().contains("GID index 2 of port 1 is empty"), empty.getMessage());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> context.queryGidEntry(1, 4)).errno());
        VerbsException noPort = assertThrows(VerbsException.class, () -> context.queryPort(2));
        assertEquals("ibv_query_port failed: EINVAL (22, Invalid argument): could not query port 2 of rxe0",
                noPort.getMessage());
    }

    @Test
    void aRegionIsNativeMemoryTheProgramReadsAndWrites() throws Exception {
        ProtectionDomain pd = context.allocatePd();
        assertTrue(pd.handle() > 0);
        MemoryRegion mr = pd.registerMemory(64, RW);
        assertNotEquals(0L, mr.address());
        assertNotEquals(mr.lkey(), mr.rkey());
        assertEquals(64, mr.length());
        assertArrayEquals(new byte[8], mr.read(0, 8), "registered memory starts zeroed");
        mr.write(10, "HelloWorld".getBytes(StandardCharsets.US_ASCII));
        assertEquals("HelloWorld", new String(mr.read(10, 10), StandardCharsets.US_ASCII));
        assertThrows(IllegalArgumentException.class, () -> mr.read(60, 8));
        byte[] into = {-1, -1, -1, -1, -1, -1};
        mr.read(16, into, 1, 4);
        assertArrayEquals(new byte[] {-1, 'o', 'r', 'l', 'd', -1}, into, "4 bytes at index 1, nothing else");
        mr.read(58, into, 0, 6);
        assertArrayEquals(new byte[6], into, "the region's last 6 bytes fill the array to its end");
        assertThrows(IllegalArgumentException.class, () -> mr.read(59, into, 0, 6), "one byte past the region");
        assertThrows(IndexOutOfBoundsException.class, () -> mr.read(10, into, 1, 6), "one byte past the array");
        assertArrayEquals(new byte[6], into, "a refused read leaves the array as it was");
        mr.writeByte(63, (byte) 0x7e);
        mr.writeByte(10, (byte) 'Y');
        assertEquals(0x7e, mr.readByte(63), "writeByte stores the region's last byte");
        assertEquals("YelloWorld", new String(mr.read(10, 10), StandardCharsets.US_ASCII), "one byte, nothing around it");
        assertThrows(IllegalArgumentException.class, () -> mr.writeByte(64, (byte) 1), "one byte past the region");
        assertThrows(IllegalArgumentException.class, () -> mr.writeByte(-1, (byte) 1));

        VerbsException refused = assertThrows(VerbsException.class,
                () -> pd.registerMemory(16, AccessFlag.REMOTE_WRITE.value()));
        assertEquals("ibv_reg_mr", refused.verb());
        assertEquals(Errno.EINVAL, refused.errno());
        assertTrue(refused.getMessage().contains("could not register 16 bytes with access 0x2"), refused.getMessage());

        mr.close();
        mr.close();
        assertThrows(IllegalStateException.class, () -> mr.read(0, 1));
        assertThrows(IllegalStateException.class, () -> mr.read(0, into, 0, 1));
        assertThrows(IllegalStateException.class, () -> mr.writeByte(0, (byte) 1), "the buffer was freed");
        pd.close();
    }

    @Test
    void aCqHasTheCapacityTheProviderGrantedAndRefusesNonsense() throws Exception {
        CompletionQueue cq = context.createCq(10, null, 0);
        assertEquals(11, cq.capacity(), "the stand-in, like real providers, grants more than asked");
        assertNull(cq.channel());
        assertEquals(List.of(), cq.poll(4));
        VerbsException e = assertThrows(VerbsException.class, () -> context.createCq(0, null, 0));
        assertEquals("ibv_create_cq", e.verb());
        assertEquals(Errno.EINVAL, e.errno());
    }

    @Test
    void aModifyMissingAnAttributeIsExplainedByTheStateTable() throws Exception {
        Pair pair = new Pair(context);
        QueuePair qp = pair.a;
        assertEquals(QpState.RESET, qp.state());
        assertEquals(64, qp.capabilities().maxInlineData(), "granted capabilities come back from ibv_create_qp");
        VerbsException e = assertThrows(VerbsException.class, () -> qp.modify(new QpAttributes().state(QpState.INIT)
                .portNum(1), QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT)));
        assertEquals("ibv_modify_qp", e.verb());
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().endsWith("RESET → INIT with mask STATE, PKEY_INDEX, PORT: missing: ACCESS_FLAGS"),
                e.getMessage());
        assertEquals(QpState.RESET, qp.state());

        VerbsException badPort = assertThrows(VerbsException.class, () -> qp.modify(new QpAttributes()
                .state(QpState.INIT).portNum(3), pair.initMask()));
        assertTrue(badPort.getMessage().contains("the mask is complete, so the device refused a value"),
                badPort.getMessage());
    }

    @Test
    void modifyAndQueryCarryEveryAttributeIncludingTheGlobalRoute() throws Exception {
        Pair pair = new Pair(context);
        pair.connect();
        assertEquals(QpState.RTS, pair.a.state());
        QpAttributes attributes = pair.a.query(0);
        assertEquals(QpState.RTS, attributes.state());
        assertEquals(Mtu.MTU_1024, attributes.pathMtu());
        assertEquals(pair.b.qpNum(), attributes.destQpNum());
        assertEquals(0x123456, attributes.rqPsn());
        assertEquals(0x654321, attributes.sqPsn());
        assertEquals(RW, attributes.accessFlags());
        assertEquals(1, attributes.portNum());
        assertEquals(0x12, attributes.minRnrTimer());
        assertEquals(14, attributes.timeout());
        assertEquals(7, attributes.retryCount());
        assertEquals(6, attributes.rnrRetry());
        assertEquals(1, attributes.maxRdAtomic());
        assertEquals(1, attributes.maxDestRdAtomic());
        AddressVector av = attributes.addressVector();
        assertTrue(av.isGlobal());
        assertEquals(1, av.portNum());
        assertEquals(new GlobalRoute(Gid.parse("::ffff:192.168.1.101"), 0xabcde, 3, 64, 0x20), av.grh());
        assertEquals(QpCapabilities.seed().maxSendWr(), attributes.capabilities().maxSendWr());
    }

    @Test
    void anRdmaWriteLandsInThePeersBufferAndCompletes() throws Exception {
        Pair pair = new Pair(context);
        pair.connect();
        byte[] hello = "HelloWorld".getBytes(StandardCharsets.US_ASCII);
        pair.mrA.write(0, hello);
        pair.a.postSend(SendWorkRequest.write(42, pair.mrA.sge(0, hello.length), pair.mrB.address() + 4,
                pair.mrB.rkey(), SIGNALED));
        WorkCompletion wc = pair.cqA.pollOne(Duration.ofSeconds(2)).orElseThrow();
        assertEquals(new WorkCompletion(42, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, hello.length, 0, pair.a.qpNum(),
                0, 0), wc);
        assertEquals("HelloWorld", new String(pair.mrB.read(4, hello.length), StandardCharsets.US_ASCII));
        assertEquals(List.of(), pair.cqA.poll(4));
    }

    @Test
    void aSendWithImmediateConsumesAPostedReceive() throws Exception {
        Pair pair = new Pair(context);
        pair.connect();
        pair.b.postRecv(ReceiveWorkRequest.of(7, pair.mrB.sge(0, 32)));
        pair.mrA.write(0, "ping".getBytes(StandardCharsets.US_ASCII));
        pair.a.postSend(SendWorkRequest.sendWithImm(8, pair.mrA.sge(0, 4), 0x12345678, SIGNALED));
        WorkCompletion received = pair.cqB.pollOne(Duration.ofSeconds(2)).orElseThrow();
        assertEquals(7, received.wrId());
        assertEquals(WcOpcode.RECV, received.opcode());
        assertEquals(4, received.byteLength());
        assertEquals(0x12345678, received.immData());
        assertTrue(WcFlag.has(received.wcFlags(), WcFlag.WITH_IMM));
        assertEquals(pair.b.qpNum(), received.qpNum());
        assertEquals("ping", new String(pair.mrB.read(0, 4), StandardCharsets.US_ASCII));
        assertEquals(WcOpcode.SEND, pair.cqA.pollOne(Duration.ofSeconds(2)).orElseThrow().opcode());
    }

    @Test
    void anRdmaReadFetchesThePeersBytes() throws Exception {
        Pair pair = new Pair(context);
        pair.connect();
        pair.mrB.write(0, new byte[] {1, 2, 3, 4, 5});
        pair.a.postSend(SendWorkRequest.read(3, pair.mrA.sge(8, 5), pair.mrB.address(), pair.mrB.rkey(), SIGNALED));
        WorkCompletion wc = pair.cqA.pollOne(Duration.ofSeconds(2)).orElseThrow();
        assertEquals(WcOpcode.RDMA_READ, wc.opcode());
        assertTrue(wc.isSuccess());
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, pair.mrA.read(8, 5));
    }

    @Test
    void aWrongRkeyIsAnErrorCompletionNotAnException() throws Exception {
        Pair pair = new Pair(context);
        pair.connect();
        pair.a.postSend(SendWorkRequest.write(9, pair.mrA.sge(0, 4), pair.mrB.address(), pair.mrB.rkey() + 99, 0));
        WorkCompletion wc = pair.cqA.pollOne(Duration.ofSeconds(2)).orElseThrow();
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status());
        assertEquals(9, wc.wrId());
        assertEquals(QpState.ERR, pair.a.state(), "qp->state follows the provider");
    }

    @Test
    void aRefusedPostNamesTheFirstRequestThatWasNotPosted() throws Exception {
        Pair pair = new Pair(context);
        VerbsException early = assertThrows(VerbsException.class,
                () -> pair.a.postSend(SendWorkRequest.send(5, pair.mrA.sge(0, 1), SIGNALED)));
        assertEquals("ibv_post_send", early.verb());
        assertEquals(Errno.EINVAL, early.errno());
        assertTrue(early.getMessage().contains("request #0 (wr_id 5)"), early.getMessage());

        pair.connect();
        SendWorkRequest first = SendWorkRequest.write(1, pair.mrA.sge(0, 2), pair.mrB.address(), pair.mrB.rkey(),
                SIGNALED);
        SendWorkRequest second = new SendWorkRequest(2, List.of(pair.mrA.sge(0, 1), pair.mrA.sge(1, 1)),
                first.opcode(), SIGNALED, 0, pair.mrB.address(), pair.mrB.rkey(), 0, 0);
        VerbsException bad = assertThrows(VerbsException.class, () -> pair.a.postSend(List.of(first, second)));
        assertTrue(bad.getMessage().contains("request #1 (wr_id 2) and the ones after it were not posted"),
                bad.getMessage());
        assertEquals(1, pair.cqA.poll(4).get(0).wrId(), "the request before the bad one was posted");
    }

    @Test
    void aChainLongerThanTheQpsOwnBlockAndAPollLargerThanTheCqsOwnArrayUseMemoryOfTheirOwn() throws Exception {
        Pair pair = new Pair(context);
        pair.connect();
        int count = NativeQueuePair.SCRATCH_BYTES / (StructSize.SEND_WR.size + StructSize.SGE.size) + 4;
        byte[] expected = new byte[count];
        List<SendWorkRequest> chain = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            expected[i] = (byte) (i + 1);
            chain.add(SendWorkRequest.write(100 + i, pair.mrA.sge(i, 1), pair.mrB.address() + i, pair.mrB.rkey(),
                    i == count - 1 ? SIGNALED : 0));
        }
        pair.mrA.write(0, expected);
        pair.a.postSend(chain);
        List<WorkCompletion> completions = pair.cqA.poll(NativeCompletionQueue.SCRATCH_ENTRIES + 8);
        assertEquals(1, completions.size(), completions.toString());
        assertEquals(100 + count - 1, completions.get(0).wrId());
        assertTrue(completions.get(0).isSuccess());
        assertArrayEquals(expected, pair.mrB.read(0, count));

        SendWorkRequest bad = new SendWorkRequest(999, List.of(pair.mrA.sge(0, 1), pair.mrA.sge(1, 1)),
                chain.get(0).opcode(), 0, 0, pair.mrB.address(), pair.mrB.rkey(), 0, 0);
        List<SendWorkRequest> longBad = new ArrayList<>(chain.subList(0, count - 1));
        longBad.add(bad);
        VerbsException refused = assertThrows(VerbsException.class, () -> pair.a.postSend(longBad));
        assertTrue(refused.getMessage().contains("request #" + (count - 1) + " (wr_id 999)"), refused.getMessage());
    }

    @Test
    void twoThreadsPostingOnOneQpAtOnceEachSendWhatTheyBuilt() throws Exception {
        Pair pair = new Pair(context);
        pair.connect();
        byte[] source = new byte[40];
        for (int i = 0; i < source.length; i++) {
            source[i] = (byte) (i + 1);
        }
        pair.mrA.write(0, source);
        // One thread writes 1 byte to offset 48, the other 40 bytes to offset 0 (of 64). A request
        // mixed from both (40 bytes to offset 48), or one zeroed under the provider, is refused by
        // the target (an error completion, even unsignaled, and the QP in ERR).
        List<SendWorkRequest> writes = List.of(
                SendWorkRequest.write(1, pair.mrA.sge(0, 1), pair.mrB.address() + 48, pair.mrB.rkey(), 0),
                SendWorkRequest.write(2, pair.mrA.sge(0, 40), pair.mrB.address(), pair.mrB.rkey(), 0));
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<Object>> posters = new ArrayList<>();
            for (SendWorkRequest write : writes) {
                posters.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < 20_000; i++) {
                        pair.a.postSend(write);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<Object> poster : posters) {
                poster.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
            assertTrue(threads.awaitTermination(10, TimeUnit.SECONDS));
        }
        assertEquals(List.of(), pair.cqA.poll(8));
        assertEquals(QpState.RTS, pair.a.state());
        assertArrayEquals(source, pair.mrB.read(0, 40));
        assertEquals(1, pair.mrB.read(48, 1)[0]);
    }

    @Test
    void aReceiveQueueThatIsFullRefusesTheRequestsThatDoNotFit() throws Exception {
        Pair pair = new Pair(context);
        pair.connect();
        VerbsException full = assertThrows(VerbsException.class, () -> pair.b.postRecv(List.of(
                ReceiveWorkRequest.of(20, pair.mrB.sge(0, 8)), ReceiveWorkRequest.of(21, pair.mrB.sge(8, 8)))));
        assertEquals("ibv_post_recv", full.verb());
        assertEquals(Errno.ENOMEM, full.errno());
        assertTrue(full.getMessage().contains("request #1 (wr_id 21) and the ones after it were not posted"),
                full.getMessage());
        pair.a.postSend(SendWorkRequest.send(22, pair.mrA.sge(0, 8), SIGNALED));
        assertEquals(20, pair.cqB.pollOne(Duration.ofSeconds(2)).orElseThrow().wrId(), "the first receive was posted");
    }

    @Test
    void oneRequestWithoutAListAndAPollIntoABufferCarryWhatTheListCallsCarry() throws Exception {
        Pair pair = new Pair(context);
        pair.connect();
        CompletionBuffer buffer = new CompletionBuffer(4);
        assertEquals(0, pair.cqB.poll(buffer));
        assertTrue(buffer.isEmpty());

        pair.b.postRecv(ReceiveWorkRequest.of(7, pair.mrB.sge(0, 32)));
        pair.mrA.write(0, "ping".getBytes(StandardCharsets.US_ASCII));
        pair.a.postSend(SendWorkRequest.sendWithImm(8, pair.mrA.sge(0, 4), 0x12345678, SIGNALED));
        pair.a.postSend(SendWorkRequest.write(9, pair.mrA.sge(0, 4), pair.mrB.address() + 40, pair.mrB.rkey(),
                SIGNALED));
        assertEquals(1, pair.cqB.poll(buffer));
        assertEquals(new WorkCompletion(7, WcStatus.SUCCESS, WcOpcode.RECV, 0, 4, 0x12345678, pair.b.qpNum(), 0,
                WcFlag.WITH_IMM.value()), buffer.get(0));
        assertEquals(0x12345678, buffer.immData(0), "immediate data in host order, as poll(int) gives it");
        assertEquals("ping", new String(pair.mrB.read(0, 4), StandardCharsets.US_ASCII));
        assertEquals("ping", new String(pair.mrB.read(40, 4), StandardCharsets.US_ASCII));

        assertEquals(2, pair.cqA.poll(buffer), "the buffer is refilled, not appended to");
        assertEquals(List.of(8L, 9L), List.of(buffer.wrId(0), buffer.wrId(1)));
        assertEquals(List.of(WcOpcode.SEND, WcOpcode.RDMA_WRITE), List.of(buffer.opcode(0), buffer.opcode(1)));
        assertTrue(buffer.isSuccess(0) && buffer.isSuccess(1));
        assertThrows(IndexOutOfBoundsException.class, () -> buffer.wrId(2), "only what this poll filled is there");
        assertEquals(0, pair.cqA.poll(buffer));
        assertThrows(IndexOutOfBoundsException.class, () -> buffer.wrId(0));
    }

    @Test
    void anErrorCompletionPolledIntoABufferKeepsItsWrIdStatusAndQp() throws Exception {
        Pair pair = new Pair(context);
        pair.connect();
        CompletionBuffer buffer = new CompletionBuffer(1);
        pair.a.postSend(SendWorkRequest.write(3, pair.mrA.sge(0, 4), pair.mrB.address(), pair.mrB.rkey(), SIGNALED));
        assertEquals(1, pair.cqA.poll(buffer));
        pair.a.postSend(SendWorkRequest.write(9, pair.mrA.sge(0, 4), pair.mrB.address(), pair.mrB.rkey() + 99, 0));
        assertEquals(1, pair.cqA.poll(buffer));
        assertEquals(WcStatus.REM_ACCESS_ERR, buffer.status(0));
        assertFalse(buffer.isSuccess(0));
        assertEquals(9, buffer.wrId(0));
        assertEquals(pair.a.qpNum(), buffer.qpNum(0));
        assertEquals(QpState.ERR, pair.a.state());
    }

    @Test
    void aRequestPostedAgainCarriesItsOwnFieldsWhateverWasPostedInBetween() throws Exception {
        // The QP's block keeps the last request posted alone and hands it over again unwritten
        // when the same object comes back: every post below must reach the stand-in with its own
        // wr_id, SGE, opcode, flags, immediate data and remote address, and each landing shows it.
        Pair pair = new Pair(context);
        pair.connect();
        SendWorkRequest write = SendWorkRequest.write(1, pair.mrA.sge(0, 4), pair.mrB.address() + 40,
                pair.mrB.rkey(), SIGNALED);
        SendWorkRequest send = SendWorkRequest.sendWithImm(2, pair.mrA.sge(8, 6), 0x0badcafe, SIGNALED);
        ReceiveWorkRequest low = ReceiveWorkRequest.of(10, pair.mrB.sge(0, 8));
        ReceiveWorkRequest high = ReceiveWorkRequest.of(11, pair.mrB.sge(16, 8));
        pair.mrA.write(8, ascii("ijklmn"));

        writeLands(pair, write, "abcd");
        sendLands(pair, send, low, 0);
        writeLands(pair, write, "wxyz");
        writeLands(pair, write, "0123");

        pair.b.postRecv(List.of(high));
        pair.a.postSend(List.of(send));
        assertCompletion(pair.cqB, 11, WcOpcode.RECV, 6, 0x0badcafe);
        assertCompletion(pair.cqA, 2, WcOpcode.SEND, 6, 0);
        assertEquals("ijklmn", new String(pair.mrB.read(16, 6), StandardCharsets.US_ASCII));
        writeLands(pair, write, "4567");

        // A chain of two (the same object twice), then the request alone again.
        pair.mrA.write(0, ascii("89AB"));
        pair.a.postSend(List.of(write, write));
        assertCompletion(pair.cqA, 1, WcOpcode.RDMA_WRITE, 4, 0);
        assertCompletion(pair.cqA, 1, WcOpcode.RDMA_WRITE, 4, 0);
        writeLands(pair, write, "CDEF");

        // Receives: the one posted alone again after another, then again after itself.
        sendLands(pair, send, low, 0);
        sendLands(pair, send, high, 16);
        sendLands(pair, send, low, 0);
        sendLands(pair, send, low, 0);

        // A chain too long for the block goes through memory of its own and leaves the block's
        // request alone; a refused post (two SGEs where the QP takes one) forgets it.
        int count = NativeQueuePair.SCRATCH_BYTES / (StructSize.SEND_WR.size + StructSize.SGE.size) + 4;
        List<SendWorkRequest> chain = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            chain.add(SendWorkRequest.write(100 + i, pair.mrA.sge(20 + i % 8, 1), pair.mrB.address() + 48 + i % 8,
                    pair.mrB.rkey(), 0));
        }
        pair.a.postSend(chain);
        writeLands(pair, write, "GHIJ");
        SendWorkRequest twoSges = new SendWorkRequest(3, List.of(pair.mrA.sge(0, 1), pair.mrA.sge(1, 1)),
                WrOpcode.RDMA_WRITE, SIGNALED, 0, pair.mrB.address(), pair.mrB.rkey(), 0, 0);
        assertThrows(VerbsException.class, () -> pair.a.postSend(twoSges));
        writeLands(pair, write, "KLMN");
        assertThrows(VerbsException.class, () -> pair.a.postSend(twoSges));
        assertThrows(VerbsException.class, () -> pair.a.postSend(twoSges));
        writeLands(pair, write, "OPQR");
    }

    /** Posts {@code write} (4 bytes from mrA's start to mrB + 40) after putting {@code text} there. */
    private static void writeLands(Pair pair, SendWorkRequest write, String text) throws Exception {
        pair.mrA.write(0, ascii(text));
        pair.a.postSend(write);
        assertCompletion(pair.cqA, 1, WcOpcode.RDMA_WRITE, 4, 0);
        assertEquals(text, new String(pair.mrB.read(40, 4), StandardCharsets.US_ASCII));
    }

    /** Posts {@code receive} on b, then {@code send} (mrA's "ijklmn") from a: it lands at {@code at}. */
    private static void sendLands(Pair pair, SendWorkRequest send, ReceiveWorkRequest receive, int at)
            throws Exception {
        pair.mrB.write(at, new byte[8]);
        pair.b.postRecv(receive);
        pair.a.postSend(send);
        assertCompletion(pair.cqB, receive.wrId(), WcOpcode.RECV, 6, 0x0badcafe);
        assertCompletion(pair.cqA, 2, WcOpcode.SEND, 6, 0);
        assertEquals("ijklmn", new String(pair.mrB.read(at, 6), StandardCharsets.US_ASCII));
    }

    /** The next completion on {@code cq} is a success with these fields (immediate data when not 0). */
    private static void assertCompletion(CompletionQueue cq, long wrId, WcOpcode opcode, int byteLength, int imm)
            throws Exception {
        WorkCompletion wc = cq.pollOne(Duration.ofSeconds(2)).orElseThrow();
        assertEquals(new WorkCompletion(wrId, WcStatus.SUCCESS, opcode, 0, byteLength, imm, wc.qpNum(), 0,
                imm != 0 ? WcFlag.WITH_IMM.value() : 0), wc);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aFieldTheProviderLeavesUnwrittenReadsZeroAfterAFullerCompletionInTheSameEntry() throws Exception {
        // A provider may write only wr_id, status, vendor_err and qp_num of an error completion:
        // the rest of the entry must read 0, not what an earlier poll of the CQ left there.
        standIn.standin_sparse_errors(1);
        try {
            Pair pair = new Pair(context);
            CompletionBuffer buffer = new CompletionBuffer(2);
            for (int round = 0; round < 4; round++) {
                pair.connect();
                SendWorkRequest good = SendWorkRequest.write(20 + round, pair.mrA.sge(0, 12), pair.mrB.address(),
                        pair.mrB.rkey(), SIGNALED);
                SendWorkRequest bad = SendWorkRequest.write(30 + round, pair.mrA.sge(0, 12), pair.mrB.address(),
                        pair.mrB.rkey() + 99, SIGNALED);
                pair.a.postSend(good);
                // The list poll and the buffer poll share the CQ's array: each round fills it with
                // one and reads the error completion with the other, or with the same.
                WorkCompletion fuller = round % 2 == 0 ? pollOneIntoBuffer(pair.cqA, buffer) : pair.cqA.poll(2).get(0);
                assertEquals(new WorkCompletion(20 + round, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, 12, 0,
                        pair.a.qpNum(), 0, 0), fuller);
                pair.a.postSend(bad);
                WorkCompletion sparse = round < 2 ? pollOneIntoBuffer(pair.cqA, buffer) : pair.cqA.poll(2).get(0);
                assertEquals(WorkCompletion.error(30 + round, WcStatus.REM_ACCESS_ERR, WcOpcode.SEND, pair.a.qpNum()),
                        sparse, "opcode, byte_len and the rest read 0");
                assertEquals(0, pair.cqA.poll(buffer), "an empty poll");
                pair.a.modify(new QpAttributes().state(QpState.RESET), QpAttrMask.of(QpAttrMask.STATE));
                pair.b.modify(new QpAttributes().state(QpState.RESET), QpAttrMask.of(QpAttrMask.STATE));
            }
        } finally {
            standIn.standin_sparse_errors(0);
        }
    }

    private static WorkCompletion pollOneIntoBuffer(CompletionQueue cq, CompletionBuffer buffer) throws Exception {
        assertEquals(1, cq.poll(buffer));
        return buffer.get(0);
    }

    @Test
    void theOneRequestCallsAndThePollIntoABufferFailAsTheListCallsDo() throws Exception {
        Pair pair = new Pair(context);
        SendWorkRequest early = SendWorkRequest.send(5, pair.mrA.sge(0, 1), SIGNALED);
        VerbsException notReady = sameFailure(VerbsException.class, () -> pair.a.postSend(early),
                () -> pair.a.postSend(List.of(early)));
        assertEquals("ibv_post_send", notReady.verb());
        assertEquals(Errno.EINVAL, notReady.errno());
        assertTrue(notReady.getMessage().contains("request #0 (wr_id 5)"), notReady.getMessage());

        ReceiveWorkRequest inReset = ReceiveWorkRequest.of(6, pair.mrB.sge(0, 8));
        assertEquals(Errno.EINVAL, sameFailure(VerbsException.class, () -> pair.b.postRecv(inReset),
                () -> pair.b.postRecv(List.of(inReset))).errno());

        pair.connect();
        SendWorkRequest twoSges = new SendWorkRequest(2, List.of(pair.mrA.sge(0, 1), pair.mrA.sge(1, 1)),
                WrOpcode.RDMA_WRITE, SIGNALED, 0, pair.mrB.address(), pair.mrB.rkey(), 0, 0);
        VerbsException tooManySges = sameFailure(VerbsException.class, () -> pair.a.postSend(twoSges),
                () -> pair.a.postSend(List.of(twoSges)));
        assertTrue(tooManySges.getMessage().contains("request #0 (wr_id 2)"), tooManySges.getMessage());

        pair.b.postRecv(ReceiveWorkRequest.of(20, pair.mrB.sge(0, 8)));
        ReceiveWorkRequest noRoom = ReceiveWorkRequest.of(21, pair.mrB.sge(8, 8));
        VerbsException full = sameFailure(VerbsException.class, () -> pair.b.postRecv(noRoom),
                () -> pair.b.postRecv(List.of(noRoom)));
        assertEquals("ibv_post_recv", full.verb());
        assertEquals(Errno.ENOMEM, full.errno());

        QueuePair ud = pair.pd.createQp(new QpInitAttributes(QpType.UD, pair.cqA, pair.cqA, QpCapabilities.seed(),
                false));
        assertEquals(Errno.EOPNOTSUPP, sameFailure(VerbsException.class, () -> ud.postSend(early),
                () -> ud.postSend(List.of(early))).errno());

        pair.a.close();
        sameFailure(IllegalStateException.class, () -> pair.a.postSend(early), () -> pair.a.postSend(List.of(early)));
        pair.b.close();
        sameFailure(IllegalStateException.class, () -> pair.b.postRecv(noRoom), () -> pair.b.postRecv(List.of(noRoom)));
        ud.close();
        pair.cqA.close();
        CompletionBuffer buffer = new CompletionBuffer(2);
        sameFailure(IllegalStateException.class, () -> pair.cqA.poll(buffer), () -> pair.cqA.poll(2));
        assertTrue(buffer.isEmpty());
    }

    @Test
    void aBufferLargerThanTheCqsOwnArrayIsPolledThroughMemoryOfItsOwn() throws Exception {
        Pair pair = new Pair(context);
        pair.connect();
        for (int i = 0; i < 5; i++) {
            pair.a.postSend(SendWorkRequest.write(50 + i, pair.mrA.sge(i, 1), pair.mrB.address() + i, pair.mrB.rkey(),
                    SIGNALED));
        }
        CompletionBuffer large = new CompletionBuffer(NativeCompletionQueue.SCRATCH_ENTRIES + 8);
        assertEquals(5, pair.cqA.poll(large));
        assertEquals(List.of(50L, 51L, 52L, 53L, 54L), large.toList().stream().map(WorkCompletion::wrId).toList());
    }

    /**
     * Runs both calls, expects each to throw {@code type}, and checks that they say the same:
     * the one-request call fails exactly as its list form does.
     */
    private static <T extends Throwable> T sameFailure(Class<T> type, Executable one, Executable list) {
        T fromOne = assertThrows(type, one);
        T fromList = assertThrows(type, list);
        assertEquals(fromList.getMessage(), fromOne.getMessage());
        if (fromOne instanceof VerbsException verbs) {
            assertEquals(((VerbsException) fromList).errno(), verbs.errno());
        }
        return fromOne;
    }

    @Test
    void aUdSendSaysItIsNotSupportedRatherThanSendingWithoutAnAddressHandle() throws Exception {
        Pair pair = new Pair(context);
        QueuePair ud = pair.pd.createQp(new QpInitAttributes(QpType.UD, pair.cqA, pair.cqA, QpCapabilities.seed(),
                false));
        VerbsException e = assertThrows(VerbsException.class,
                () -> ud.postSend(SendWorkRequest.send(1, pair.mrA.sge(0, 1), SIGNALED)));
        assertEquals(Errno.EOPNOTSUPP, e.errno());
        assertTrue(e.getMessage().contains("address handle"), e.getMessage());
        VerbsException rawPacket = assertThrows(VerbsException.class, () -> pair.pd.createQp(
                new QpInitAttributes(QpType.RAW_PACKET, pair.cqA, pair.cqA, QpCapabilities.seed(), false)));
        assertEquals("ibv_create_qp", rawPacket.verb());
        assertEquals(Errno.EINVAL, rawPacket.errno());
    }

    @Test
    void aChannelReportsAnArmedCqWithinTheTimeout() throws Exception {
        CompletionChannel channel = context.createCompletionChannel();
        Pair pair = new Pair(context, channel);
        pair.connect();
        pair.cqA.requestNotify(false);
        VerbsException timeout = assertThrows(VerbsException.class, () -> channel.getEvent(Duration.ofMillis(20)));
        assertEquals(Errno.ETIMEDOUT, timeout.errno());
        assertEquals("ibv_get_cq_event", timeout.verb());
        pair.a.postSend(SendWorkRequest.write(11, pair.mrA.sge(0, 1), pair.mrB.address(), pair.mrB.rkey(), SIGNALED));
        assertSame(pair.cqA, channel.getEvent(Duration.ofSeconds(2)));
        assertEquals(11, pair.cqA.poll(1).get(0).wrId());
        // The event is left unacknowledged on purpose: closing the context acknowledges it before ibv_destroy_cq.
    }

    @Test
    void closingTheContextClosesEveryChildOnceAndForAll() throws Exception {
        Pair pair = new Pair(context, context.createCompletionChannel());
        pair.connect();
        assertTrue(standIn.standin_live_objects() > 5);
        context.close();
        context.close();
        assertEquals(0, standIn.standin_live_objects());
        assertThrows(IllegalStateException.class, () -> pair.a.state());
        assertThrows(IllegalStateException.class, () -> context.allocatePd());
        pair.a.close();
    }

    @Test
    void theSecondDeviceOpensToo() throws Exception {
        try (Context other = new NativeProvider(library.toString()).devices(DeviceOptions.defaults()).get(1).open()) {
            assertEquals("mlx5_0", other.device().name());
            assertEquals(2, other.queryDevice().physPortCount());
            PortAttributes second = other.queryPort(2);
            assertEquals(PortState.DOWN, second.state());
            assertEquals(LinkLayer.INFINIBAND, second.linkLayer());
            assertEquals(7, second.lid());
            assertEquals(List.of(), other.gidTable(2));
        }
    }

    /** Two RC QPs on one context, each with its own CQ and a 64-byte region, that can be connected to each other. */
    private static final class Pair {
        final ProtectionDomain pd;
        final CompletionQueue cqA;
        final CompletionQueue cqB;
        final MemoryRegion mrA;
        final MemoryRegion mrB;
        final QueuePair a;
        final QueuePair b;

        Pair(Context context) throws VerbsException {
            this(context, null);
        }

        Pair(Context context, CompletionChannel channel) throws VerbsException {
            pd = context.allocatePd();
            cqA = context.createCq(8, channel, 0);
            cqB = context.createCq(8, channel, 0);
            mrA = pd.registerMemory(64, RW);
            mrB = pd.registerMemory(64, RW);
            a = pd.createQp(new QpInitAttributes(QpType.RC, cqA, cqA, QpCapabilities.seed(), false));
            b = pd.createQp(new QpInitAttributes(QpType.RC, cqB, cqB, QpCapabilities.seed(), false));
            assertFalse(a.qpNum() == b.qpNum());
        }

        int initMask() {
            return QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS);
        }

        void connect() throws VerbsException {
            connect(a, b);
            connect(b, a);
        }

        private void connect(QueuePair qp, QueuePair peer) throws VerbsException {
            qp.modify(new QpAttributes().state(QpState.INIT).portNum(1).accessFlags(RW), initMask());
            qp.modify(new QpAttributes().state(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(peer.qpNum())
                            .rqPsn(0x123456).maxDestRdAtomic(1).minRnrTimer(0x12)
                            .addressVector(AddressVector.global(new GlobalRoute(Gid.parse("::ffff:192.168.1.101"),
                                    0xabcde, 3, 64, 0x20), 1)),
                    QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                            QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
            qp.modify(new QpAttributes().state(QpState.RTS).timeout(14).retryCount(7).rnrRetry(6).sqPsn(0x654321)
                            .maxRdAtomic(1),
                    QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                            QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC));
        }
    }
}
