package org.rdmalab.lab.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
