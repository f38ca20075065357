package org.rdmalab.lab.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.GidType;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/** The parts of the scenario package that need no device. */
class ScenarioModelTest {

    @Test
    void everyScenarioTheLoopbackCommandPromisesExists() {
        assertEquals(List.of("seed", "bulk", "send", "atomic", "bad-rkey", "out-of-bounds", "mr-no-remote-write",
                "qp-no-remote-write", "rnr", "retry-exceeded", "bad-transition"), Scenarios.names());
        assertEquals(Scenarios.names().size(), new HashSet<>(Scenarios.names()).size());
        for (Scenario scenario : Scenarios.all()) {
            assertFalse(scenario.description().isBlank(), scenario.name());
            assertFalse(scenario.description().contains("\n"), scenario.name());
        }
        assertTrue(Scenarios.find(Scenarios.DEFAULT).isPresent());
        assertTrue(Scenarios.find("nope").isEmpty());
    }

    @Test
    void theBestGidIsTheIpv4MappedRoceV2OneAsPerftestPicks() throws Exception {
        byte[] mac = {2, 0, 127, 0, 0, 1};
        Gid linkLocal = Gid.linkLocal(mac);
        Gid mapped = Gid.parse("::ffff:127.0.0.1");
        List<GidEntry> table = List.of(
                new GidEntry(0, 1, linkLocal, GidType.ROCE_V1, "lo", ""),
                new GidEntry(1, 1, linkLocal, GidType.ROCE_V2, "lo", ""),
                new GidEntry(2, 1, mapped, GidType.ROCE_V1, "lo", "127.0.0.1"),
                new GidEntry(3, 1, mapped, GidType.ROCE_V2, "lo", "127.0.0.1"));
        java.net.Inet4Address local = org.rdmalab.verbs.spi.DeviceOptions.parseAddress("127.0.0.1");
        assertEquals(3, Peer.chooseGid(table, local).entry().index());
        assertEquals(2, Peer.chooseGid(table.subList(0, 3), local).entry().index());
    }

    @Test
    void eachPeerTakesTheGidOfItsOwnAddressOnADeviceWithTwo() throws Exception {
        List<GidEntry> table = List.of(
                new GidEntry(0, 1, Gid.parse("fe80::5054:ff:fe12:3456"), GidType.ROCE_V2, "eth0", ""),
                new GidEntry(1, 1, Gid.parse("::ffff:10.0.2.15"), GidType.ROCE_V2, "eth0", "10.0.2.15"),
                new GidEntry(2, 1, Gid.parse("::ffff:10.0.2.16"), GidType.ROCE_V2, "eth0", "10.0.2.16"));
        assertEquals(1, Peer.chooseGid(table, org.rdmalab.verbs.spi.DeviceOptions.parseAddress("10.0.2.15"))
                .entry().index());
        assertEquals(2, Peer.chooseGid(table, org.rdmalab.verbs.spi.DeviceOptions.parseAddress("10.0.2.16"))
                .entry().index());
        assertThrows(org.rdmalab.verbs.VerbsException.class,
                () -> Peer.chooseGid(List.of(), org.rdmalab.verbs.spi.DeviceOptions.parseAddress("10.0.2.16")));
    }

    @Test
    void buffersPrintAsCStringsOrHex() {
        assertEquals("\"HelloWorld\\0\"  11 bytes",
                ScenarioPrinter.preview("HelloWorld\0".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("00 ff 10  3 bytes", ScenarioPrinter.preview(new byte[] {0, (byte) 0xff, 0x10}));
        String longHex = ScenarioPrinter.preview(new byte[40]);
        assertTrue(longHex.startsWith("00 00"), longHex);
        assertTrue(longHex.contains("...  40 bytes, crc32 0x"), longHex);
    }

    @Test
    void completionsPrintWithVerbsNames() {
        WorkCompletion ok = new WorkCompletion(1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, 11, 0, 0x12, 0, 0);
        assertTrue(ScenarioPrinter.describe(ok, 500_000).startsWith(
                "wr_id 1  IBV_WC_SUCCESS  opcode IBV_WC_RDMA_WRITE  byte_len 11  qp_num 0x12"));
        WorkCompletion bad = WorkCompletion.error(2, WcStatus.REM_ACCESS_ERR, WcOpcode.RDMA_WRITE, 0x12);
        assertTrue(ScenarioPrinter.describe(bad, -1).startsWith("wr_id 2  IBV_WC_REM_ACCESS_ERR (remote access error)"));
    }

    @Test
    void theResultAndCountersArePrintedAtTheEnd() {
        StringWriter text = new StringWriter();
        ScenarioPrinter printer = new ScenarioPrinter(new PrintWriter(text));
        Map<String, Long> server = new LinkedHashMap<>();
        server.put("sent_pkts", 2L);
        server.put("rcvd_pkts", 3L);
        server.put("cq_overflow", 0L);
        printer.onEvent(new ScenarioEvent.Counters(PeerRole.SERVER, server));
        printer.onEvent(new ScenarioEvent.Counters(PeerRole.CLIENT, Map.of("sent_pkts", 3L)));
        printer.onEvent(new ScenarioEvent.Check(false, "expected X, got Y"));
        printer.result(ScenarioResult.unexpected("expected X, got Y", List.of("expected X, got Y")));
        String out = text.toString();
        assertTrue(out.contains("CHECK FAILED      expected X, got Y"), out);
        assertTrue(out.matches("(?s).*  sent_pkts\\s+2\\s+3\\n.*"), out);
        assertTrue(out.matches("(?s).*  rcvd_pkts\\s+3\\s+-\\n.*"), out);
        assertTrue(out.contains("(1 more at 0)"), out);
        assertFalse(out.contains("cq_overflow"), out);
        assertTrue(out.contains("result: NOT as expected: expected X, got Y"), out);
    }

    @Test
    void checksCollectWhatFailed() {
        List<ScenarioEvent> events = new java.util.ArrayList<>();
        Checks checks = new Checks(events::add);
        checks.bytes(new byte[] {1, 2, 3}, new byte[] {1, 2, 3}, "same");
        assertTrue(checks.allPassed());
        checks.bytes(new byte[] {1, 9, 3}, new byte[] {1, 2, 3}, "buffer");
        checks.completion(java.util.Optional.empty(), 4, WcStatus.SUCCESS, null, -1);
        ScenarioResult result = checks.result("fine");
        assertFalse(result.asExpected());
        assertEquals(2, result.problems().size());
        assertTrue(result.problems().get(0).contains("first difference at offset 1"), result.problems().get(0));
        assertTrue(result.problems().get(1).contains("no completion came"));
        assertEquals(3, events.size());
    }
}
