package org.rdmalab.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a caller builds with the verbs types and what a device receives from them: the send and
 * receive requests (every field of each opcode's builder), the QP attributes, the SGEs a memory
 * region hands out, the completion's one-line text and the numbers of the ACK and RNR timers.
 * Every value below is distinct from the others, so a field that takes another's value fails.
 */
class VerbsRequestsTest {

    private static final ScatterGatherElement LOCAL = new ScatterGatherElement(0x7f00_1000L, 4096, 0x1234);

    private static void assertRequest(SendWorkRequest wr, long wrId, WrOpcode opcode, int flags, int imm,
            long remoteAddress, int rkey, long compareAdd, long swap) {
        assertEquals(wrId, wr.wrId(), "wr_id");
        assertEquals(List.of(LOCAL), wr.sgList(), "sg_list");
        assertEquals(opcode, wr.opcode(), "opcode");
        assertEquals(flags, wr.sendFlags(), "send_flags");
        assertEquals(imm, wr.immData(), "imm_data");
        assertEquals(remoteAddress, wr.remoteAddress(), "remote_addr");
        assertEquals(rkey, wr.rkey(), "rkey");
        assertEquals(compareAdd, wr.compareAdd(), "compare_add");
        assertEquals(swap, wr.swap(), "swap");
    }

    @Test
    void eachSendBuilderFillsTheFieldsOfItsOpcodeAndLeavesTheOthersZero() {
        int signaled = SendFlag.of(SendFlag.SIGNALED);
        assertRequest(SendWorkRequest.write(11, LOCAL, 0x5000, 0x77, signaled), 11, WrOpcode.RDMA_WRITE, 2, 0,
                0x5000, 0x77, 0, 0);
        assertRequest(SendWorkRequest.writeWithImm(12, LOCAL, 0x6000, 0x78, 0xCAFE, 8), 12,
                WrOpcode.RDMA_WRITE_WITH_IMM, 8, 0xCAFE, 0x6000, 0x78, 0, 0);
        assertRequest(SendWorkRequest.read(13, LOCAL, 0x7000, 0x79, 4), 13, WrOpcode.RDMA_READ, 4, 0, 0x7000, 0x79,
                0, 0);
        assertRequest(SendWorkRequest.send(14, LOCAL, 1), 14, WrOpcode.SEND, 1, 0, 0, 0, 0, 0);
        assertRequest(SendWorkRequest.sendWithImm(15, LOCAL, 0xBEEF, 3), 15, WrOpcode.SEND_WITH_IMM, 3, 0xBEEF, 0, 0,
                0, 0);
        assertRequest(SendWorkRequest.fetchAdd(16, LOCAL, 0x8000, 0x7a, 5, 6), 16, WrOpcode.ATOMIC_FETCH_AND_ADD, 6, 0,
                0x8000, 0x7a, 5, 0);
        assertRequest(SendWorkRequest.compareSwap(17, LOCAL, 0x9000, 0x7b, 21, 42, 10), 17,
                WrOpcode.ATOMIC_CMP_AND_SWP, 10, 0, 0x9000, 0x7b, 21, 42);
    }

    @Test
    void aRequestIsSignaledOnlyWithTheSignaledBit() {
        assertTrue(SendWorkRequest.send(1, LOCAL, SendFlag.of(SendFlag.SIGNALED)).signaled());
        assertTrue(SendWorkRequest.send(1, LOCAL, SendFlag.of(SendFlag.SIGNALED, SendFlag.FENCE)).signaled());
        assertFalse(SendWorkRequest.send(1, LOCAL, 0).signaled());
        assertFalse(SendWorkRequest.send(1, LOCAL, SendFlag.of(SendFlag.FENCE, SendFlag.SOLICITED, SendFlag.INLINE))
                .signaled());
    }

    @Test
    void theTotalLengthAddsEveryElementAsUnsigned() {
        List<ScatterGatherElement> sges = new ArrayList<>(List.of(new ScatterGatherElement(0x1000, 100, 1),
                new ScatterGatherElement(0x2000, 20, 1), new ScatterGatherElement(0x3000, 3, 1)));
        SendWorkRequest send = new SendWorkRequest(1, sges, WrOpcode.SEND, 0, 0, 0, 0, 0, 0);
        ReceiveWorkRequest recv = new ReceiveWorkRequest(2, sges);
        sges.clear(); // the requests keep their own copy
        assertEquals(123, send.totalLength());
        assertEquals(123, recv.totalLength());
        assertEquals(3, send.sgList().size());
        // ibv_sge.length is a u32: 0xFFFFFFFF bytes is 4 GiB - 1, not -1.
        ScatterGatherElement huge = new ScatterGatherElement(0, -1, 1);
        assertEquals(0xFFFF_FFFFL + 5, new SendWorkRequest(1, List.of(huge, new ScatterGatherElement(0, 5, 1)),
                WrOpcode.RDMA_WRITE, 0, 0, 0, 0, 0, 0).totalLength());
        assertEquals(0xFFFF_FFFFL, ReceiveWorkRequest.of(3, huge).totalLength());
        assertEquals(0, new ReceiveWorkRequest(4, List.of()).totalLength());
        assertEquals(3, ReceiveWorkRequest.of(3, huge).wrId());
        assertThrows(NullPointerException.class, () -> new SendWorkRequest(1, List.of(), null, 0, 0, 0, 0, 0, 0));
    }

    @Test
    void aCopyOfTheAttributesCarriesEveryFieldAndIsIndependent() {
        AddressVector av = AddressVector.global(GlobalRoute.of(Gid.parse("::ffff:10.0.2.15"), 3), 1);
        QpCapabilities caps = new QpCapabilities(10, 11, 12, 13, 14);
        QpAttributes original = new QpAttributes().state(QpState.RTS).currentState(QpState.RTR).pathMtu(Mtu.MTU_2048)
                .pathMigState(MigState.ARMED).qkey(101).rqPsn(102).sqPsn(103).destQpNum(104).accessFlags(105)
                .capabilities(caps).addressVector(av).pkeyIndex(106).sqdAsyncNotify(true).maxRdAtomic(107)
                .maxDestRdAtomic(108).minRnrTimer(109).portNum(110).timeout(111).retryCount(112).rnrRetry(113);
        QpAttributes copy = original.copy();
        assertNotSame(original, copy);
        assertEquals(QpState.RTS, copy.state());
        assertEquals(QpState.RTR, copy.currentState());
        assertEquals(Mtu.MTU_2048, copy.pathMtu());
        assertEquals(MigState.ARMED, copy.pathMigState());
        assertEquals(101, copy.qkey());
        assertEquals(102, copy.rqPsn());
        assertEquals(103, copy.sqPsn());
        assertEquals(104, copy.destQpNum());
        assertEquals(105, copy.accessFlags());
        assertEquals(caps, copy.capabilities());
        assertEquals(av, copy.addressVector());
        assertEquals(106, copy.pkeyIndex());
        assertTrue(copy.sqdAsyncNotify());
        assertEquals(107, copy.maxRdAtomic());
        assertEquals(108, copy.maxDestRdAtomic());
        assertEquals(109, copy.minRnrTimer());
        assertEquals(110, copy.portNum());
        assertEquals(111, copy.timeout());
        assertEquals(112, copy.retryCount());
        assertEquals(113, copy.rnrRetry());
        copy.state(QpState.ERR).sqPsn(7).timeout(8);
        assertEquals(QpState.RTS, original.state());
        assertEquals(103, original.sqPsn());
        assertEquals(111, original.timeout());
    }

    @Test
    void freshAttributesAreTheZeroedStructOfC() {
        QpAttributes fresh = new QpAttributes();
        assertEquals(QpState.RESET, fresh.state());
        assertEquals(QpState.RESET, fresh.currentState());
        assertEquals(MigState.MIGRATED, fresh.pathMigState());
        assertNull(fresh.addressVector());
        assertFalse(fresh.sqdAsyncNotify());
        assertEquals(new QpCapabilities(0, 0, 0, 0, 0), fresh.capabilities());
        assertEquals(0, fresh.sqPsn() + fresh.rqPsn() + fresh.timeout() + fresh.retryCount() + fresh.rnrRetry()
                + fresh.portNum() + fresh.pkeyIndex() + fresh.qkey());
    }

    @Test
    void addressVectorsAndRoutes() {
        Gid peer = Gid.parse("::ffff:10.0.2.16");
        GlobalRoute grh = GlobalRoute.of(peer, 3);
        assertEquals(new GlobalRoute(peer, 0, 3, 1, 0), grh);
        AddressVector global = AddressVector.global(grh, 2);
        assertTrue(global.isGlobal());
        assertEquals(new AddressVector(grh, 0, 0, 0, 0, 2), global);
        AddressVector local = AddressVector.local(0x11, 1);
        assertFalse(local.isGlobal());
        assertEquals(new AddressVector(null, 0x11, 0, 0, 0, 1), local);
        assertEquals(new QpCapabilities(1, 1, 1, 1, 0), QpCapabilities.seed());
    }

    @Test
    void aCompletionReadsAsOneLine() {
        WorkCompletion write = new WorkCompletion(7, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, 4096, 0, 0x11, 0, 0);
        assertTrue(write.isSuccess());
        assertEquals("wr_id 7 IBV_WC_SUCCESS opcode IBV_WC_RDMA_WRITE byte_len 4096 qp 0x11", write.toString());
        WorkCompletion imm = new WorkCompletion(8, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, 0, -1, 0xCAFE, 0x12,
                0x13, WcFlag.WITH_IMM.value());
        assertEquals("wr_id 8 IBV_WC_SUCCESS opcode IBV_WC_RECV_RDMA_WITH_IMM byte_len 4294967295 imm_data 0x0000cafe"
                + " qp 0x12", imm.toString());
        WorkCompletion grhOnly = new WorkCompletion(9, WcStatus.SUCCESS, WcOpcode.RECV, 0, 5, 0xCAFE, 0x12, 0,
                WcFlag.GRH.value());
        assertEquals("wr_id 9 IBV_WC_SUCCESS opcode IBV_WC_RECV byte_len 5 qp 0x12", grhOnly.toString());
        WorkCompletion failed = WorkCompletion.error(10, WcStatus.REM_ACCESS_ERR, WcOpcode.RDMA_READ, 0x14);
        assertFalse(failed.isSuccess());
        assertEquals("wr_id 10 IBV_WC_REM_ACCESS_ERR (remote access error) qp 0x14", failed.toString());
        assertEquals(new WorkCompletion(10, WcStatus.REM_ACCESS_ERR, WcOpcode.RDMA_READ, 0, 0, 0, 0x14, 0, 0), failed);
    }

    @Test
    void rnrTimerCodesAndAckTimeoutsAtTheEndsOfTheirRange() {
        assertEquals(10_000L, RnrTimer.nanos(1));
        assertEquals(20_000L, RnrTimer.nanos(2));
        assertEquals(120_000L, RnrTimer.nanos(7));
        assertEquals(327_680_000L, RnrTimer.nanos(30));
        assertEquals("RNR timer code -1 is outside 0..31",
                assertThrows(IllegalArgumentException.class, () -> RnrTimer.nanos(-1)).getMessage());
        assertEquals("RNR timer code 32 is outside 0..31",
                assertThrows(IllegalArgumentException.class, () -> RnrTimer.nanos(32)).getMessage());
        assertEquals(8192L, RnrTimer.ackTimeoutNanos(1));
        assertEquals(4096L << 14, RnrTimer.ackTimeoutNanos(14));
        assertEquals(4096L << 31, RnrTimer.ackTimeoutNanos(31));
        assertEquals("timeout -1 is outside 0..31",
                assertThrows(IllegalArgumentException.class, () -> RnrTimer.ackTimeoutNanos(-1)).getMessage());
        assertEquals("timeout 32 is outside 0..31",
                assertThrows(IllegalArgumentException.class, () -> RnrTimer.ackTimeoutNanos(32)).getMessage());
    }

    /** A region over a Java array, so the interface's own methods (SGEs, reads) are what is tested. */
    private static final class ArrayRegion implements MemoryRegion {
        final byte[] bytes;
        final long address;
        int reads;

        ArrayRegion(int length, long address) {
            this.bytes = new byte[length];
            this.address = address;
        }

        @Override
        public ProtectionDomain pd() {
            return null;
        }

        @Override
        public long address() {
            return address;
        }

        @Override
        public int length() {
            return bytes.length;
        }

        @Override
        public int lkey() {
            return 0x99;
        }

        @Override
        public int rkey() {
            return 0x98;
        }

        @Override
        public int accessFlags() {
            return 0;
        }

        @Override
        public byte[] read(int offset, int length) {
            reads++;
            if (offset < 0 || length < 0 || offset + length > bytes.length) {
                throw new IllegalArgumentException("outside");
            }
            return java.util.Arrays.copyOfRange(bytes, offset, offset + length);
        }

        @Override
        public void write(int offset, byte[] data) {
            System.arraycopy(data, 0, bytes, offset, data.length);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void anSgeCoversAnyRangeInsideTheRegionAndNothingOutside() {
        ArrayRegion mr = new ArrayRegion(64, 0x10_0000L);
        assertEquals(new ScatterGatherElement(0x10_0000L, 64, 0x99), mr.sge());
        assertEquals(new ScatterGatherElement(0x10_0010L, 48, 0x99), mr.sge(16, 48));
        assertEquals(new ScatterGatherElement(0x10_0040L, 0, 0x99), mr.sge(64, 0));
        assertEquals(new ScatterGatherElement(0x10_0000L, 0, 0x99), mr.sge(0, 0));
        IllegalArgumentException past = assertThrows(IllegalArgumentException.class, () -> mr.sge(16, 49));
        assertEquals("range 16+49 is outside the 64-byte region", past.getMessage());
        assertThrows(IllegalArgumentException.class, () -> mr.sge(-1, 1));
        assertThrows(IllegalArgumentException.class, () -> mr.sge(0, -1));
        assertThrows(IllegalArgumentException.class, () -> mr.sge(65, 0));
        // offset + length past 2^31 is outside, not a negative sum that looks small.
        assertThrows(IllegalArgumentException.class, () -> mr.sge(1, Integer.MAX_VALUE));
    }

    @Test
    void readingIntoAnArrayCopiesTheRangeWhereAsked() {
        ArrayRegion mr = new ArrayRegion(8, 0);
        mr.write(0, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        byte[] into = new byte[6];
        mr.read(2, into, 1, 4);
        assertArrayEquals(new byte[] {0, 3, 4, 5, 6, 0}, into);
        assertEquals(8, mr.readByte(7));
        assertEquals(1, mr.readByte(0));
        mr.writeByte(7, (byte) 42); // the interface's own writeByte, through write
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 42}, mr.read(0, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> mr.read(0, into, 3, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> mr.read(0, into, -1, 2));
        mr.read(0, into, 2, 4); // exactly to the end of the array
        assertArrayEquals(new byte[] {0, 3, 1, 2, 3, 4}, into);
    }

    /** A CQ that hands out what a test put in it, at most {@code max} a poll. */
    private static final class ListCq implements CompletionQueue {
        final List<WorkCompletion> pending = new ArrayList<>();
        final List<Integer> asked = new ArrayList<>();
        int polls;
        Runnable onPoll = () -> { };

        @Override
        public int capacity() {
            return 15;
        }

        @Override
        public CompletionChannel channel() {
            return null;
        }

        @Override
        public List<WorkCompletion> poll(int maxEntries) {
            polls++;
            asked.add(maxEntries);
            onPoll.run();
            List<WorkCompletion> taken = new ArrayList<>();
            while (taken.size() < maxEntries && !pending.isEmpty()) {
                taken.add(pending.remove(0));
            }
            return taken;
        }

        @Override
        public void requestNotify(boolean solicitedOnly) {
        }

        @Override
        public void ackEvents(int count) {
        }

        @Override
        public void close() {
        }
    }

    private static WorkCompletion done(long wrId) {
        return new WorkCompletion(wrId, WcStatus.SUCCESS, WcOpcode.SEND, 0, 1, 0, 1, 0, 0);
    }

    @Test
    void pollingIntoABufferTakesAtMostItsCapacityOldestFirstAndReplacesWhatItHeld() throws VerbsException {
        ListCq cq = new ListCq();
        for (long id = 1; id <= 5; id++) {
            cq.pending.add(done(id));
        }
        CompletionBuffer buffer = new CompletionBuffer(3);
        assertEquals(3, cq.poll(buffer));
        assertEquals(List.of(3), cq.asked);
        assertEquals(List.of(done(1), done(2), done(3)), buffer.toList());
        assertEquals(2, cq.poll(buffer));
        assertEquals(List.of(done(4), done(5)), buffer.toList());
        assertEquals(0, cq.poll(buffer));
        assertTrue(buffer.isEmpty());
    }

    @Test
    void pollOneReturnsTheFirstCompletionOrNothingOnceTheTimeoutPassed() throws VerbsException {
        ListCq cq = new ListCq();
        cq.onPoll = () -> {
            if (cq.polls == 3) {
                cq.pending.add(done(41));
                cq.pending.add(done(42));
            }
        };
        assertEquals(done(41), cq.pollOne(java.time.Duration.ofSeconds(30)).orElseThrow());
        assertEquals(3, cq.polls);
        assertEquals(List.of(1, 1, 1), cq.asked);
        assertEquals(done(42), cq.pollOne(java.time.Duration.ZERO).orElseThrow());
        ListCq empty = new ListCq();
        assertTrue(empty.pollOne(java.time.Duration.ZERO).isEmpty());
        assertEquals(1, empty.polls);
        assertTrue(empty.pollOne(java.time.Duration.ofMillis(20)).isEmpty());
        assertTrue(empty.polls > 2, "polled until the timeout: " + empty.polls);
    }

    @Test
    void busyPollReturnsAsSoonAsACompletionIsThereAndZeroAfterTheTimeout() throws VerbsException {
        ListCq cq = new ListCq();
        cq.onPoll = () -> {
            if (cq.polls == 300) {
                cq.pending.add(done(7));
            }
        };
        CompletionBuffer buffer = new CompletionBuffer(4);
        assertEquals(1, cq.busyPoll(buffer, java.time.Duration.ofSeconds(30)));
        assertEquals(300, cq.polls, "no poll after the completion came, and none skipped before it");
        assertEquals(done(7), buffer.get(0));
        ListCq empty = new ListCq();
        assertEquals(0, empty.busyPoll(buffer, java.time.Duration.ZERO));
        // The clock is read every 256th empty poll: a timeout already passed ends at the 256th.
        assertEquals(256, empty.polls);
        assertTrue(buffer.isEmpty());
    }

    @Test
    void theBackendsAnswerEachForItselfAndFindADeviceByName() throws VerbsException {
        Device rxe0 = device("rxe0");
        Device soft0 = device("soft0");
        org.rdmalab.verbs.spi.VerbsProvider failing = provider("zz-failing", null);
        org.rdmalab.verbs.spi.Backends backends = new org.rdmalab.verbs.spi.Backends(List.of(
                provider("libibverbs", List.of(rxe0)), failing, provider("software", List.of(soft0))));
        List<org.rdmalab.verbs.spi.Backends.Listing> listings = backends.list(null);
        assertEquals(3, listings.size());
        assertEquals(List.of(rxe0), listings.get(0).devices());
        assertNull(listings.get(0).failure());
        assertEquals(List.of(), listings.get(1).devices());
        assertEquals(Errno.ENOSYS, listings.get(1).failure().errno());
        assertSame(failing, listings.get(1).provider());
        assertSame(soft0, backends.find("soft0", null));
        assertSame(rxe0, backends.find("rxe0", null));
        VerbsException missing = assertThrows(VerbsException.class, () -> backends.find("mlx5_0", null));
        assertEquals(Errno.ENODEV, missing.errno());
        assertEquals("no device named 'mlx5_0'; available: rxe0, soft0", missing.detail());
        VerbsException none = assertThrows(VerbsException.class,
                () -> new org.rdmalab.verbs.spi.Backends(List.of(failing)).find("soft0", null));
        assertEquals("no device named 'soft0'; available: none", none.detail());
        assertEquals(3, backends.providers().size());
    }

    @Test
    void theInstalledBackendsAreListedByName() {
        List<String> names = org.rdmalab.verbs.spi.Backends.installed().providers().stream()
                .map(org.rdmalab.verbs.spi.VerbsProvider::name).toList();
        assertTrue(names.contains("software"), names.toString());
        assertEquals(names.stream().sorted().toList(), names);
    }

    private static Device device(String name) {
        return new Device() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String backend() {
                return "fake";
            }

            @Override
            public String description() {
                return name;
            }

            @Override
            public Context open() throws VerbsException {
                throw new VerbsException("ibv_open_device", Errno.ENODEV, "fake");
            }
        };
    }

    private static org.rdmalab.verbs.spi.VerbsProvider provider(String name, List<Device> devices) {
        return new org.rdmalab.verbs.spi.VerbsProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<Device> devices(org.rdmalab.verbs.spi.DeviceOptions options) throws VerbsException {
                if (devices == null) {
                    throw new VerbsException("ibv_get_device_list", Errno.ENOSYS, "no RDMA");
                }
                return devices;
            }
        };
    }

    /** A device whose port 1 has a table of {@code entries.length} slots; a null slot answers ENODATA. */
    private static Context table(GidEntry... entries) {
        return new Context() {
            @Override
            public Device device() {
                return null;
            }

            @Override
            public DeviceAttributes queryDevice() {
                return null;
            }

            @Override
            public PortAttributes queryPort(int port) {
                return new PortAttributes(PortState.ACTIVE, Mtu.MTU_4096, Mtu.MTU_1024, entries.length, 0, 1L << 31, 1,
                        0, 0, 1, 1, 5, LinkLayer.ETHERNET);
            }

            @Override
            public GidEntry queryGidEntry(int port, int index) throws VerbsException {
                if (index < 0 || index >= entries.length) {
                    throw new VerbsException("ibv_query_gid_ex", Errno.EINVAL, "index " + index);
                }
                if (entries[index] == null) {
                    throw new VerbsException("ibv_query_gid_ex", Errno.ENODATA, "empty slot");
                }
                return entries[index];
            }

            @Override
            public ProtectionDomain allocatePd() {
                return null;
            }

            @Override
            public CompletionChannel createCompletionChannel() {
                return null;
            }

            @Override
            public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
                return null;
            }

            @Override
            public void close() {
            }
        };
    }

    private static GidEntry entry(int index, String gid) {
        return new GidEntry(index, 1, Gid.parse(gid), GidType.ROCE_V2, "eth0", "");
    }

    @Test
    void theGidTableListsEveryPopulatedSlotUpToTheLastAndSkipsEmptyOnes() throws VerbsException {
        GidEntry first = entry(0, "fe80::1");
        GidEntry zero = new GidEntry(2, 1, Gid.ZERO, GidType.ROCE_V2, "", "");
        GidEntry last = entry(3, "::ffff:10.0.2.15");
        Context context = table(first, null, zero, last);
        assertEquals(List.of(first, last), context.gidTable(1));
        assertEquals(Gid.parse("::ffff:10.0.2.15"), context.queryGid(1, 3));
        assertEquals(java.util.Map.of(), context.queryCounters());
        assertEquals(List.of(), table().gidTable(1));
    }

    @Test
    void aGidQueryThatFailsForAnotherReasonThanAnEmptySlotReachesTheCaller() {
        Context context = new Context() {
            final Context inner = table(entry(0, "fe80::1"), null);

            @Override
            public Device device() {
                return null;
            }

            @Override
            public DeviceAttributes queryDevice() {
                return null;
            }

            @Override
            public PortAttributes queryPort(int port) throws VerbsException {
                return inner.queryPort(port);
            }

            @Override
            public GidEntry queryGidEntry(int port, int index) throws VerbsException {
                if (index == 1) {
                    throw new VerbsException("ibv_query_gid_ex", Errno.EIO, "device gone");
                }
                return inner.queryGidEntry(port, index);
            }

            @Override
            public ProtectionDomain allocatePd() {
                return null;
            }

            @Override
            public CompletionChannel createCompletionChannel() {
                return null;
            }

            @Override
            public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
                return null;
            }

            @Override
            public void close() {
            }
        };
        VerbsException e = assertThrows(VerbsException.class, () -> context.gidTable(1));
        assertEquals(Errno.EIO, e.errno());
    }
}
