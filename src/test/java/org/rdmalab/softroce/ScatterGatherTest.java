package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.SimulatedNetwork;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.ScatterGatherElement;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * A work request's scatter / gather list against the regions its lkeys name, as rxe's
 * {@code copy_data} resolves and copies them: each SGE's range inside its region at both ends and
 * one byte beyond, the status for an unknown key, another PD's region or a region without
 * LOCAL_WRITE, only the SGEs a message's bytes lie in looked up, and copies that cross SGE
 * boundaries at every offset. Also the region's own range and atomic words.
 */
class ScatterGatherTest {

    private Context context;
    private SoftRoceContext soft;
    private SoftProtectionDomain pd;
    private SoftProtectionDomain otherPd;

    @BeforeEach
    void open() throws Exception {
        context = SoftRoceProvider.device(DeviceOptions.defaults(), new SimulatedNetwork()).open();
        soft = (SoftRoceContext) context;
        pd = (SoftProtectionDomain) context.allocatePd();
        otherPd = (SoftProtectionDomain) context.allocatePd();
    }

    @AfterEach
    void close() {
        context.close();
    }

    private SoftMemoryRegion region(SoftProtectionDomain in, int length, AccessFlag... flags) throws Exception {
        return (SoftMemoryRegion) in.registerMemory(length, AccessFlag.of(flags));
    }

    private static ScatterGatherElement sge(SoftMemoryRegion mr, int offset, int length) {
        return new ScatterGatherElement(mr.address() + offset, length, mr.lkey());
    }

    private static ScatterGather list(ScatterGatherElement... sges) {
        ScatterGather list = new ScatterGather(sges.length);
        list.fill(List.of(sges));
        return list;
    }

    @Test
    void aRegionHoldsExactlyItsOwnRange() throws Exception {
        SoftMemoryRegion mr = region(pd, 100, AccessFlag.LOCAL_WRITE);
        long va = mr.address();
        assertTrue(mr.contains(va, 100));
        assertTrue(mr.contains(va + 99, 1));
        assertTrue(mr.contains(va + 100, 0), "an empty range at the end");
        assertTrue(mr.contains(va, 0));
        assertFalse(mr.contains(va, 101));
        assertFalse(mr.contains(va + 1, 100));
        assertFalse(mr.contains(va + 100, 1));
        assertFalse(mr.contains(va + 101, 0), "an empty range past the end");
        assertFalse(mr.contains(va - 1, 1));
        assertFalse(mr.contains(va - 1, 0));
        assertFalse(mr.contains(va, -1));
        assertEquals(37, mr.offsetOf(va + 37));
        assertEquals(AccessFlag.LOCAL_WRITE.value(), mr.accessFlags());
        assertSame(pd, mr.pd());
        SoftMemoryRegion remote = region(otherPd, 8, AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ);
        assertEquals(AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ), remote.accessFlags());
        assertSame(otherPd, remote.pd());
        assertEquals(0, va & 0xfff, "page-aligned");
    }

    @Test
    void atomicsUseLittleEndianWordsAndReturnTheOldValue() throws Exception {
        SoftMemoryRegion mr = region(pd, 32, AccessFlag.LOCAL_WRITE);
        mr.write(8, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        assertEquals(0x0807060504030201L, mr.fetchAdd(mr.address() + 8, 0x10));
        assertArrayEquals(new byte[] {0x11, 2, 3, 4, 5, 6, 7, 8}, mr.read(8, 8));
        assertEquals(0x0807060504030211L, mr.compareSwap(mr.address() + 8, 0x1234, 99), "no swap when it differs");
        assertArrayEquals(new byte[] {0x11, 2, 3, 4, 5, 6, 7, 8}, mr.read(8, 8));
        assertEquals(0x0807060504030211L, mr.compareSwap(mr.address() + 8, 0x0807060504030211L, -2L));
        assertArrayEquals(new byte[] {-2, -1, -1, -1, -1, -1, -1, -1}, mr.read(8, 8));
        assertArrayEquals(new byte[8], mr.read(0, 8), "the word before is untouched");
        assertArrayEquals(new byte[8], mr.read(16, 8), "and the word after");
    }

    @Test
    void theApplicationsReadsAndWritesStayInsideTheRegion() throws Exception {
        SoftMemoryRegion mr = region(pd, 16, AccessFlag.LOCAL_WRITE);
        mr.write(12, new byte[] {9, 8, 7, 6});
        assertArrayEquals(new byte[] {9, 8, 7, 6}, mr.read(12, 4));
        assertEquals(6, mr.readByte(15));
        mr.writeByte(15, (byte) -3);
        assertArrayEquals(new byte[] {9, 8, 7, -3}, mr.read(12, 4), "writeByte stores one byte, nothing around it");
        assertThrows(IllegalArgumentException.class, () -> mr.writeByte(16, (byte) 1));
        mr.writeByte(15, (byte) 6);
        byte[] into = new byte[6];
        mr.read(13, into, 2, 3);
        assertArrayEquals(new byte[] {0, 0, 8, 7, 6, 0}, into);
        assertEquals(0, mr.read(16, 0).length, "an empty read at the end");
        assertThrows(IllegalArgumentException.class, () -> mr.read(13, 4));
        assertThrows(IllegalArgumentException.class, () -> mr.read(-1, 1));
        assertThrows(IllegalArgumentException.class, () -> mr.read(0, -1));
        assertThrows(IllegalArgumentException.class, () -> mr.readByte(16));
        assertThrows(IllegalArgumentException.class, () -> mr.write(13, new byte[4]));
        assertThrows(IndexOutOfBoundsException.class, () -> mr.read(0, new byte[4], 2, 3));
        assertTrue(mr.toString().startsWith(String.format("MR addr 0x%016x len 16 lkey 0x%08x rkey 0x%08x access ",
                mr.address(), mr.lkey(), mr.rkey())), mr.toString());
    }

    @Test
    void resolvingForWritesNeedsTheSamePdLocalWriteAndTheWholeRange() throws Exception {
        SoftMemoryRegion writable = region(pd, 64, AccessFlag.LOCAL_WRITE);
        SoftMemoryRegion readOnly = region(pd, 64);
        SoftMemoryRegion foreign = region(otherPd, 64, AccessFlag.LOCAL_WRITE);

        ScatterGather good = list(sge(writable, 0, 16), sge(writable, 48, 16));
        assertTrue(good.resolveWritable(soft, pd));
        assertSame(writable, good.regions[0]);
        assertSame(writable, good.regions[1]);
        assertEquals(0, good.offsets[0]);
        assertEquals(48, good.offsets[1]);

        assertFalse(list(sge(writable, 0, 16), sge(writable, 49, 16)).resolveWritable(soft, pd), "one byte beyond");
        assertFalse(list(sge(readOnly, 0, 16)).resolveWritable(soft, pd), "no LOCAL_WRITE");
        assertFalse(list(sge(foreign, 0, 16)).resolveWritable(soft, pd), "another PD");
        assertFalse(list(new ScatterGatherElement(writable.address(), 16, writable.lkey() ^ 0x80))
                .resolveWritable(soft, pd), "a key that names nothing");
        ScatterGather empty = list(new ScatterGatherElement(0, 0, 0x12345), sge(writable, 8, 8));
        assertTrue(empty.resolveWritable(soft, pd), "an empty SGE is not looked up");
        assertNull(empty.regions[0]);
        assertEquals(8, empty.offsets[1]);

        good.release();
        assertNull(good.regions[0]);
        assertNull(good.regions[1]);
        good.fill(List.of(sge(writable, 4, 4)));
        assertEquals(1, good.count);
        assertNull(good.regions[0], "a new request starts unresolved");
    }

    @Test
    void lookUpGivesRxesStatusForEachFailureAndOnlyLooksAtTheSgesTheBytesLieIn() throws Exception {
        SoftMemoryRegion writable = region(pd, 64, AccessFlag.LOCAL_WRITE);
        SoftMemoryRegion readOnly = region(pd, 64);
        SoftMemoryRegion foreign = region(otherPd, 64, AccessFlag.LOCAL_WRITE);

        // 16 bytes in the first SGE, then 16 in a region without LOCAL_WRITE.
        ScatterGather list = list(sge(writable, 0, 16), sge(readOnly, 0, 16));
        assertNull(list.lookUp(soft, pd, 0, 16, true), "the bytes lie in the first SGE only");
        assertSame(writable, list.regions[0]);
        assertNull(list.regions[1], "not looked up");
        assertEquals(WcStatus.LOC_QP_OP_ERR, list.lookUp(soft, pd, 0, 17, true), "one byte into the second");
        assertEquals(WcStatus.LOC_QP_OP_ERR, list.lookUp(soft, pd, 16, 1, true));
        assertNull(list.lookUp(soft, pd, 0, 32, false), "a gather reads: LOCAL_WRITE not needed");
        assertSame(readOnly, list.regions[1]);

        assertEquals(WcStatus.LOC_QP_OP_ERR, list(sge(foreign, 0, 8)).lookUp(soft, pd, 0, 8, false), "another PD");
        assertEquals(WcStatus.LOC_QP_OP_ERR, list(new ScatterGatherElement(writable.address(), 8, 0x7fff00))
                .lookUp(soft, pd, 0, 8, false), "unknown key");

        // An SGE that runs past its region: only the bytes asked for are checked.
        ScatterGather past = list(sge(writable, 56, 16));
        assertNull(past.lookUp(soft, pd, 0, 8, true), "bytes 56..63 are inside");
        assertEquals(WcStatus.LOC_PROT_ERR, past.lookUp(soft, pd, 0, 9, true), "byte 64 is not");
        assertEquals(WcStatus.LOC_PROT_ERR, past.lookUp(soft, pd, 8, 1, false));
        assertEquals(WcStatus.LOC_PROT_ERR, past.lookUp(soft, pd, 15, 1, false));

        // Zero-length SGEs are skipped; an offset beyond them lands in the right one.
        ScatterGather gaps = list(new ScatterGatherElement(0, 0, 0x99), sge(writable, 32, 8),
                new ScatterGatherElement(0, 0, 0x98), sge(writable, 0, 8));
        assertNull(gaps.lookUp(soft, pd, 8, 8, true));
        assertNull(gaps.regions[1], "the first SGE's bytes were not asked for");
        assertSame(writable, gaps.regions[3]);
        assertEquals(0, gaps.offsets[3]);
        assertNull(gaps.lookUp(soft, pd, 0, 16, true));
        assertEquals(32, gaps.offsets[1]);

        writable.close();
        assertEquals(WcStatus.LOC_QP_OP_ERR, list(sge(writable, 0, 8)).lookUp(soft, pd, 0, 8, false),
                "a deregistered key names nothing");
    }

    @Test
    void aDeregisteredRegionIsLetGoOfAndNoLongerReadOrWritten() throws Exception {
        SoftMemoryRegion kept = region(pd, 16, AccessFlag.LOCAL_WRITE);
        SoftMemoryRegion gone = region(pd, 16, AccessFlag.LOCAL_WRITE);
        assertTrue(soft.regions().contains(gone));
        gone.close();
        assertFalse(soft.regions().contains(gone), "the device holds no reference to its memory any more");
        assertTrue(soft.regions().contains(kept));
        assertNull(soft.regionByKey(gone.lkey()));
        assertSame(kept, soft.regionByKey(kept.lkey()));
        assertThrows(IllegalStateException.class, () -> gone.read(0, 1));
        assertThrows(IllegalStateException.class, () -> gone.read(0, new byte[1], 0, 1));
        assertThrows(IllegalStateException.class, () -> gone.readByte(0));
        assertThrows(IllegalStateException.class, () -> gone.write(0, new byte[1]));
        assertThrows(IllegalStateException.class, () -> gone.writeByte(0, (byte) 1));
    }

    @Test
    void copiesCrossSgeBoundariesAtEveryOffset() throws Exception {
        SoftMemoryRegion a = region(pd, 32, AccessFlag.LOCAL_WRITE);
        SoftMemoryRegion b = region(pd, 32, AccessFlag.LOCAL_WRITE);
        // Message bytes 0..4 at a+3, 5..5 at b+10, 6..13 at a+20 (an empty SGE between).
        ScatterGather list = list(sge(a, 3, 5), sge(b, 10, 1), new ScatterGatherElement(0, 0, 0x77), sge(a, 20, 8));
        int total = 14;
        assertNull(list.lookUp(soft, pd, 0, total, true));
        for (int offset = 0; offset < total; offset++) {
            for (int length = 0; offset + length <= total; length++) {
                a.write(0, new byte[32]);
                b.write(0, new byte[32]);
                byte[] message = new byte[total];
                for (int i = 0; i < total; i++) {
                    message[i] = (byte) (i + 1);
                }
                byte[] source = new byte[length + 3];
                System.arraycopy(message, offset, source, 3, length);
                list.copy(offset, source, 3, length, true);
                byte[] expectedA = new byte[32];
                byte[] expectedB = new byte[32];
                for (int i = offset; i < offset + length; i++) {
                    if (i < 5) {
                        expectedA[3 + i] = message[i];
                    } else if (i < 6) {
                        expectedB[10] = message[i];
                    } else {
                        expectedA[20 + i - 6] = message[i];
                    }
                }
                String what = "bytes " + offset + "+" + length;
                assertArrayEquals(expectedA, a.read(0, 32), what);
                assertArrayEquals(expectedB, b.read(0, 32), what);
                byte[] back = new byte[length + 2];
                list.copy(offset, back, 2, length, false);
                byte[] expectedBack = new byte[length + 2];
                System.arraycopy(message, offset, expectedBack, 2, length);
                assertArrayEquals(expectedBack, back, what + " read back");
            }
        }
    }
}
