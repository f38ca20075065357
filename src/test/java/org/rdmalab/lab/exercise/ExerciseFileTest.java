package org.rdmalab.lab.exercise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.Role;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.FaultSettings;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;

/**
 * Instructors' exercise files: a file with every field and every check kind reads into the exercise
 * it says, and each kind of mistake (a syntax error, a missing field, a wrong type, an unknown name,
 * an unknown key, a number out of range) is refused with one line naming the file, the line and the
 * field, on both sides of each boundary.
 */
public class ExerciseFileTest {

    public static final String FULL = """
            # An instructor's exercise with every field.
            name: small-recv
            title:
              en: A receive too small
              zh_CN: 接收请求太小
            teaches: A SEND lands in the receive the peer posted.
            goal: Make the client's receive take the server's SEND.
            hints:
              - Run both sides to the end.
              - en: Look at Post RECV's length.
                zh_CN: 看“提交 RECV”的 length。
            start:
              flow: rc-example
              gid_idx: 3
              device: soft0
              faults: drop=0.01,seed=7
              mr_flags: [LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ]
              qp_access_flags:
                server: [IBV_ACCESS_LOCAL_WRITE, REMOTE_WRITE]
              params:
                - {side: client, step: post-recv, parameter: length, value: 4}
                - {step: modify-rtr, parameter: rq_psn, value: 0x10}
            checks:
              - {kind: completion, side: client, status: IBV_WC_SUCCESS, opcode: IBV_WC_RECV, byte_len: 11}
              - {kind: buffer, side: client, offset: 0, text: ServerSend, after: 1}
              - {kind: qp_state, side: server, state: IBV_QPS_RTS}
              - {kind: read_back, side: client, text: Hello}
              - {kind: packet, side: client, packet: write_in_packets, count: 1}
              - {kind: recovered, side: client}
              - {kind: counter, side: server, counter: send_rnr_err, at_least: 0, at_most: 0}
              - {kind: step_result, side: client, step: modify-rtr, result: failed, errno: EINVAL}
              - {kind: buffer, side: server, offset: 16, word: 3}
              - {kind: buffer, side: server, offset: 0, bytes: "48 65"}
              - {kind: completion, side: client, status: IBV_WC_REM_ACCESS_ERR, after: 9}
              - {kind: packet, side: server, packet: rnr_nak_sent}
              - {kind: completion, side: server, status: SUCCESS, imm_data: 0x1234, no_rnr_nak: true}
              - {kind: step_result, side: server, step: modify-rtr, result: ok}
            """;

    private static String with(String old, String replacement) {
        assertTrue(FULL.contains(old), old);
        return FULL.replace(old, replacement);
    }

    private static List<String> problems(String text) {
        return ExerciseFile.problems("ex.yaml", text).stream().map(ExerciseFile.Problem::toString).toList();
    }

    /** The line (from 1) where {@code fragment} first appears in {@code text}. */
    private static int lineOf(String text, String fragment) {
        int at = text.indexOf(fragment);
        assertTrue(at >= 0, fragment);
        return (int) text.substring(0, at).chars().filter(c -> c == '\n').count() + 1;
    }

    private static void refusedWith(String text, String fragment, String expected) {
        List<String> found = problems(text);
        assertEquals(List.of("ex.yaml:" + lineOf(text, fragment) + ": " + expected), found);
    }

    private static void accepted(String text) {
        assertEquals(List.of(), problems(text));
    }

    // ---- a whole file ----

    @Test
    void aFileWithEveryFieldReadsIntoTheExerciseItSays() {
        Exercise exercise = ExerciseFile.parse("ex.yaml", FULL, false);
        assertEquals("small-recv", exercise.name());
        assertEquals("A receive too small", exercise.title().english());
        assertEquals("接收请求太小", exercise.title().in(Locale.SIMPLIFIED_CHINESE));
        assertEquals("A SEND lands in the receive the peer posted.", exercise.teaches().in(Locale.SIMPLIFIED_CHINESE));
        assertEquals(2, exercise.hints().size());
        assertEquals("看“提交 RECV”的 length。", exercise.hints().get(1).in(Locale.SIMPLIFIED_CHINESE));
        Start start = exercise.start();
        assertEquals(Flows.SeedFlow.RC_EXAMPLE, start.flow());
        assertEquals("3", start.gidIndex());
        assertEquals("soft0", start.device());
        assertEquals(FaultSettings.parse("drop=0.01,seed=7"), start.faults());
        assertEquals(List.of(
                Start.Edit.both("reg-mr", "mr_flags", "LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ"),
                new Start.Edit(Role.SERVER, "modify-init", "qp_access_flags", "LOCAL_WRITE, REMOTE_WRITE"),
                new Start.Edit(Role.CLIENT, "post-recv", "length", "4"),
                Start.Edit.both("modify-rtr", "rq_psn", "0x10")), start.edits());
        List<Check> checks = exercise.checks();
        assertEquals(14, checks.size());
        assertEquals(Check.CompletionOf.success(Role.CLIENT, WcOpcode.RECV, 11), checks.get(0));
        assertEquals(new Check.After(0, Check.Holds.text(Role.CLIENT, 0, "ServerSend")), checks.get(1));
        assertEquals(new Check.QpIn(Role.SERVER, QpState.RTS), checks.get(2));
        assertEquals(new Check.ReadBack(Role.CLIENT, "Hello"), checks.get(3));
        assertEquals(new Check.PacketSeen(Role.CLIENT, Check.Wire.WRITE_IN_PACKETS, 1), checks.get(4));
        assertEquals(new Check.Recovered(Role.CLIENT), checks.get(5));
        assertEquals(new Check.CounterRises(Role.SERVER, "send_rnr_err", 0, 0), checks.get(6));
        assertEquals(new Check.StepEnded(Role.CLIENT, "modify-rtr", false, Errno.EINVAL), checks.get(7));
        assertEquals(Check.Holds.word(Role.SERVER, 16, 3), checks.get(8));
        assertEquals(List.of((byte) 0x48, (byte) 0x65), List.of(((Check.Holds) checks.get(9)).bytes()[0],
                ((Check.Holds) checks.get(9)).bytes()[1]));
        assertEquals(new Check.After(8, Check.CompletionOf.error(Role.CLIENT, WcStatus.REM_ACCESS_ERR)), checks.get(10));
        assertEquals(Check.PacketSeen.of(Role.SERVER, Check.Wire.RNR_NAK_SENT), checks.get(11));
        assertEquals(new Check.CompletionOf(Role.SERVER, WcStatus.SUCCESS, null, -1, 0x1234, true), checks.get(12));
        assertEquals(new Check.StepEnded(Role.SERVER, "modify-rtr", true, null), checks.get(13));
    }

    @Test
    void theSmallestFileNeedsNameTitleTeachesGoalAFlowAndOneCheck() {
        String smallest = """
                name: tiny
                title: Tiny
                teaches: Nothing much.
                goal: Reach RTS.
                start: {flow: write-only}
                checks:
                  - {kind: qp_state, side: client, state: RTS}
                """;
        Exercise exercise = ExerciseFile.parse("tiny.yaml", smallest, false);
        assertEquals(List.of(), exercise.hints());
        assertEquals("-1", exercise.start().gidIndex());
        assertNull(exercise.start().device());
        assertNull(exercise.start().faults());
        assertEquals("Tiny", exercise.title().in(Locale.SIMPLIFIED_CHINESE));
    }

    @Test
    void theBuiltInExercisesWrittenAsFilesAreTheOnesTheCodeWroteBefore() {
        Exercise pathMtu = Exercises.named("path-mtu").orElseThrow();
        assertEquals(Start.of(Flows.SeedFlow.WRITE_ONLY, "3", Start.Edit.both("modify-rtr", "path_mtu", "4096"),
                Start.Edit.both("reg-mr", "size", "4096"),
                new Start.Edit(Role.CLIENT, "post-rdma-write", "length", "4096")), pathMtu.start());
        assertEquals(List.of(new Check.QpIn(Role.SERVER, QpState.RTS), new Check.QpIn(Role.CLIENT, QpState.RTS),
                Check.CompletionOf.success(Role.CLIENT, WcOpcode.RDMA_WRITE, 4096),
                new Check.PacketSeen(Role.CLIENT, Check.Wire.WRITE_IN_PACKETS, 4)), pathMtu.checks());
        Exercise dropAck = Exercises.named("drop-ack").orElseThrow();
        assertEquals(List.of(Check.PacketSeen.of(Role.SERVER, Check.Wire.ACK_DROPPED),
                new Check.After(0, Check.PacketSeen.of(Role.CLIENT, Check.Wire.REQUEST_RETRANSMITTED)),
                new Check.After(1, Check.CompletionOf.success(Role.CLIENT, WcOpcode.RDMA_WRITE)),
                Check.Holds.text(Role.SERVER, 0, "HelloWorld")), dropAck.checks());
        Exercise recv = Exercises.named("recv-too-small").orElseThrow();
        assertEquals(Start.of(Flows.SeedFlow.RC_EXAMPLE, "3", new Start.Edit(Role.CLIENT, "post-recv", "length", "4")),
                recv.start());
        assertEquals(List.of(Check.CompletionOf.success(Role.CLIENT, WcOpcode.RECV, 11),
                new Check.After(0, Check.Holds.text(Role.CLIENT, 0, "ServerSend")),
                Check.CompletionOf.success(Role.SERVER, WcOpcode.SEND)), recv.checks());
    }

    // ---- syntax ----

    @Test
    void aSyntaxErrorIsOneLineWithItsLine() {
        String broken = with("  - {kind: recovered, side: client}", "  - {kind: recovered, side: client");
        List<String> found = problems(broken);
        assertEquals(1, found.size(), found.toString());
        assertTrue(found.get(0).startsWith("ex.yaml:"), found.get(0));
        assertTrue(found.get(0).contains(": YAML syntax error: "), found.get(0));
        int line = Integer.parseInt(found.get(0).split(":")[1]);
        assertTrue(line >= lineOf(broken, "kind: recovered") && line <= lineOf(broken, "kind: counter"), found.get(0));
        accepted(with("  - {kind: recovered, side: client}", "  - {kind: recovered,   side: client }"));
    }

    @Test
    void aTabForIndentationIsASyntaxErrorOnItsLine() {
        String tabbed = with("  gid_idx: 3", "\tgid_idx: 3");
        List<String> found = problems(tabbed);
        assertEquals(1, found.size(), found.toString());
        assertTrue(found.get(0).startsWith("ex.yaml:" + lineOf(tabbed, "\tgid_idx") + ": YAML syntax error"), found.get(0));
    }

    @Test
    void anEmptyFileOrAListIsRefused() {
        assertEquals(List.of("ex.yaml:1: is empty; an exercise needs at least name, title, teaches, goal, start and"
                + " checks"), problems("# nothing\n"));
        assertEquals(List.of("ex.yaml:1: the file is a list; expected a mapping of name, title, teaches, goal, hints,"
                + " start, checks"), problems("- a\n- b\n"));
    }

    // ---- missing fields ----

    @Test
    void aMissingFieldIsNamedOnTheLineOfItsMapping() {
        refusedWith(with("goal: Make the client's receive take the server's SEND.\n", ""), "name:", "goal: missing");
        String noStatus = with("status: IBV_WC_SUCCESS, opcode: IBV_WC_RECV", "opcode: IBV_WC_RECV");
        refusedWith(noStatus, "{kind: completion, side: client, opcode", "checks[1].status: missing");
        refusedWith(with("  flow: rc-example\n", ""), "start:", "start.flow: missing");
        refusedWith(with("{kind: recovered, side: client}", "{kind: recovered}"), "{kind: recovered}",
                "checks[6].side: missing");
        refusedWith(with("{kind: recovered, side: client}", "{side: client}"), "{side: client}",
                "checks[6].kind: missing; one of qp_state, completion, buffer, read_back, packet, recovered, counter,"
                        + " step_result");
        refusedWith(with("offset: 0, text: ServerSend,", "text: ServerSend,"), "{kind: buffer, side: client, text",
                "checks[2].offset: missing");
        refusedWith(with("packet: write_in_packets, count: 1}", "packet: write_in_packets}"),
                "packet: write_in_packets}", "checks[5].count: missing; write_in_packets needs the packet count (1 or more)");
        refusedWith(with("en: A receive too small\n", ""), "title:", "title.en: missing");
    }

    @Test
    void aBufferCheckNeedsExactlyOneOfTextWordAndBytes() {
        refusedWith(with("offset: 16, word: 3}", "offset: 16}"), "offset: 16}",
                "checks[9]: missing what the buffer holds: give text, word or bytes");
        refusedWith(with("offset: 16, word: 3}", "offset: 16, word: 3, text: x}"), "offset: 16, word",
                "checks[9]: give one of text, word, not 2");
    }

    // ---- wrong types ----

    @Test
    void aValueOfTheWrongTypeSaysWhatItIsAndWhatIsExpected() {
        String text = with("byte_len: 11}", "byte_len: eleven}");
        refusedWith(text, "byte_len: eleven", "checks[1].byte_len: is the text 'eleven'; expected a whole number in"
                + " 0..4294967295");
        refusedWith(with("byte_len: 11}", "byte_len: \"11\"}"), "byte_len: \"11\"",
                "checks[1].byte_len: is the text '11'; expected a whole number in 0..4294967295");
        refusedWith(with("no_rnr_nak: true", "no_rnr_nak: 1"), "no_rnr_nak: 1",
                "checks[13].no_rnr_nak: is the number '1'; expected true or false");
        refusedWith(with("hints:\n  - Run both sides to the end.\n  - en: Look at Post RECV's length.\n"
                        + "    zh_CN: 看“提交 RECV”的 length。\n", "hints: Run both sides.\n"), "hints: Run",
                "hints: is the text 'Run both sides.'; expected a list (lines starting with '- ')");
        refusedWith(with("  - {kind: recovered, side: client}", "  - recovered"), "  - recovered",
                "checks[6]: is the text 'recovered'; a check is a mapping with kind, side and its fields");
        refusedWith(with("teaches: A SEND lands in the receive the peer posted.", "teaches: 42"), "teaches: 42",
                "teaches: is the number '42'; expected text (quote it if it looks like a number)");
        refusedWith(with("teaches: A SEND lands in the receive the peer posted.", "teaches: \"\""), "teaches: \"\"",
                "teaches: is empty; write the text");
        String flat = with("start:\n  flow: rc-example", "start: rc-example\nstartx:\n  flow: rc-example");
        assertEquals(List.of("ex.yaml:" + lineOf(flat, "start: rc-example") + ": start: is the text 'rc-example';"
                        + " expected a mapping of flow, gid_idx, device, faults, mr_flags, qp_access_flags, params",
                "ex.yaml:" + lineOf(flat, "startx") + ": startx: unknown key; valid keys here: name, title, teaches, goal,"
                        + " hints, start, checks"), problems(flat));
    }

    // ---- unknown names ----

    @Test
    void anUnknownStatusListsTheValidOnes() {
        String text = with("status: IBV_WC_SUCCESS", "status: IBV_WC_SUCESS");
        List<String> found = problems(text);
        assertEquals(1, found.size());
        assertTrue(found.get(0).startsWith("ex.yaml:" + lineOf(text, "SUCESS") + ": checks[1].status: 'IBV_WC_SUCESS'"
                + " is not a completion status (IBV_WC_SUCCESS, IBV_WC_LOC_LEN_ERR, "), found.get(0));
        assertTrue(found.get(0).endsWith("IBV_WC_TM_RNDV_INCOMPLETE)") || found.get(0).contains("IBV_WC_GENERAL_ERR"),
                found.get(0));
        accepted(with("status: IBV_WC_SUCCESS", "status: SUCCESS"));
    }

    @Test
    void everyNamedValueIsCheckedAgainstItsList() {
        refusedWith(with("opcode: IBV_WC_RECV", "opcode: IBV_WC_RECEIVE"), "IBV_WC_RECEIVE",
                "checks[1].opcode: 'IBV_WC_RECEIVE' is not a completion opcode (IBV_WC_SEND, IBV_WC_RDMA_WRITE,"
                        + " IBV_WC_RDMA_READ, IBV_WC_COMP_SWAP, IBV_WC_FETCH_ADD, IBV_WC_BIND_MW, IBV_WC_LOCAL_INV,"
                        + " IBV_WC_TSO, IBV_WC_RECV, IBV_WC_RECV_RDMA_WITH_IMM)");
        refusedWith(with("state: IBV_QPS_RTS", "state: IBV_QPS_READY"), "IBV_QPS_READY",
                "checks[3].state: 'IBV_QPS_READY' is not a QP state (IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR,"
                        + " IBV_QPS_RTS, IBV_QPS_SQD, IBV_QPS_SQE, IBV_QPS_ERR)");
        refusedWith(with("flow: rc-example", "flow: rc_example"), "rc_example",
                "start.flow: 'rc_example' is not a flow (write-only, rc-example)");
        refusedWith(with("{kind: recovered, side: client}", "{kind: recovered, side: peer}"), "side: peer",
                "checks[6].side: 'peer' is not a side (server, client)");
        refusedWith(with("{kind: recovered, side: client}", "{kind: recover, side: client}"), "kind: recover,",
                "checks[6].kind: 'recover' is not a check kind (qp_state, completion, buffer, read_back, packet,"
                        + " recovered, counter, step_result)");
        refusedWith(with("packet: rnr_nak_sent", "packet: rnr_nak"), "packet: rnr_nak}",
                "checks[12].packet: 'rnr_nak' is not a packet (rnr_nak_sent, ack_dropped, request_retransmitted,"
                        + " write_in_packets)");
        List<String> counter = problems(with("counter: send_rnr_err", "counter: send_rnr_errs"));
        assertTrue(counter.get(0).contains("checks[7].counter: 'send_rnr_errs' is not a port counter (sent_pkts,"),
                counter.toString());
        assertTrue(problems(with("errno: EINVAL", "errno: EINVALID")).get(0)
                .contains("checks[8].errno: 'EINVALID' is not an errno (EPERM, ENOENT"));
        refusedWith(with("result: ok}", "result: done}"), "result: done",
                "checks[14].result: 'done' is not a step result (ok, failed)");
        refusedWith(with("mr_flags: [LOCAL_WRITE,", "mr_flags: [LOCAL_WRITES,"), "LOCAL_WRITES",
                "start.mr_flags[1]: 'LOCAL_WRITES' is not an access flag (LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ,"
                        + " REMOTE_ATOMIC, MW_BIND, ZERO_BASED, ON_DEMAND, HUGETLB, RELAXED_ORDERING)");
        refusedWith(with("faults: drop=0.01,seed=7", "faults: loss=0.01"), "loss=",
                "start.faults: fault spec: unknown key 'loss'; valid keys: drop, dup, reorder, corrupt, delay, seed"
                        + " (the spec of --fault, e.g. drop=0.05,seed=7)");
    }

    @Test
    void aStepOrParameterTheFlowDoesNotHaveIsNamedWithTheOnesItHas() {
        List<String> step = problems(with("step: post-recv,", "step: post-receive,"));
        assertEquals(1, step.size());
        assertTrue(step.get(0).startsWith("ex.yaml:" + lineOf(FULL, "step: post-recv") + ": start.params[1].step: the"
                + " client's rc-example flow has no step 'post-receive' (open-device, "), step.get(0));
        // post-recv is the client's alone in rc-example: on both sides it is refused for the server.
        List<String> both = problems(with("{side: client, step: post-recv", "{step: post-recv"));
        assertTrue(both.get(0).contains("start.params[1].step: the server's rc-example flow has no step 'post-recv'"),
                both.toString());
        refusedWith(with("parameter: length, value: 4", "parameter: len, value: 4"), "parameter: len,",
                "start.params[1].parameter: step 'post-recv' has no parameter 'len' (wr_id, length)");
        List<String> value = problems(with("parameter: length, value: 4", "parameter: length, value: -4"));
        assertEquals(1, value.size());
        assertTrue(value.get(0).startsWith("ex.yaml:" + lineOf(FULL, "parameter: length") + ": start.params[1].value: "),
                value.get(0));
        List<String> checked = problems(with("step: modify-rtr, result: failed", "step: modify-rts2, result: failed"));
        assertTrue(checked.get(0).contains("checks[8].step: the client's rc-example flow has no step 'modify-rts2'"),
                checked.toString());
    }

    @Test
    void aBuiltInExercisesNameIsRefusedForAnInstructorsFile() {
        refusedWith(with("name: small-recv", "name: drop-ack"), "name: drop-ack",
                "name: 'drop-ack' is a built-in exercise's name; choose another");
        refusedWith(with("name: small-recv", "name: Small_Recv"), "name: Small_Recv",
                "name: 'Small_Recv' is not a name: lower-case letters, digits and '-', at most 40 characters (e.g."
                        + " small-recv)");
        accepted(with("name: small-recv", "name: " + "a".repeat(40)));
        refusedWith(with("name: small-recv", "name: " + "a".repeat(41)), "name: aaa",
                "name: '" + "a".repeat(41) + "' is not a name: lower-case letters, digits and '-', at most 40"
                        + " characters (e.g. small-recv)");
    }

    // ---- unknown keys ----

    @Test
    void anUnknownKeyIsAnErrorAtItsLine() {
        refusedWith(with("goal:", "colour: red\ngoal:"), "colour", "colour: unknown key; valid keys here: name, title,"
                + " teaches, goal, hints, start, checks");
        refusedWith(with("byte_len: 11}", "bytelen: 11}"), "bytelen",
                "checks[1].bytelen: unknown key; valid keys here: kind, side, after, status, opcode, byte_len, imm_data,"
                        + " no_rnr_nak");
        refusedWith(with("  device: soft0", "  device: soft0\n  port: 1"), "port: 1",
                "start.port: unknown key; valid keys here: flow, gid_idx, device, faults, mr_flags, qp_access_flags,"
                        + " params");
        refusedWith(with("zh_CN: 接收请求太小", "zh: 接收请求太小"), "zh: ", "title.zh: unknown key; valid keys here: en, zh_CN");
        // A key of another kind of check is unknown here too.
        refusedWith(with("{kind: recovered, side: client}", "{kind: recovered, side: client, text: x}"), "text: x}",
                "checks[6].text: unknown key; valid keys here: kind, side, after");
        refusedWith(with("goal:", "name: again\ngoal:"), "name: again", "name: given twice (first on line 2)");
    }

    // ---- numbers out of range ----

    @Test
    void numbersAreCheckedOnBothSidesOfTheirRange() {
        accepted(with("gid_idx: 3", "gid_idx: 255"));
        refusedWith(with("gid_idx: 3", "gid_idx: 256"), "gid_idx", "start.gid_idx: 256 is outside -1..255");
        accepted(with("gid_idx: 3", "gid_idx: -1"));
        refusedWith(with("gid_idx: 3", "gid_idx: -2"), "gid_idx", "start.gid_idx: -2 is outside -1..255");
        accepted(with("gid_idx: 3", "gid_idx: auto"));
        refusedWith(with("gid_idx: 3", "gid_idx: best"), "gid_idx", "start.gid_idx: 'best' is not a GID index: give -1"
                + " (no GRH, the seed's), auto, or an index 0..255");

        accepted(with("byte_len: 11}", "byte_len: 4294967295}"));
        refusedWith(with("byte_len: 11}", "byte_len: 4294967296}"), "byte_len",
                "checks[1].byte_len: 4294967296 is outside 0..4294967295");
        accepted(with("imm_data: 0x1234", "imm_data: 0xffffffff"));
        refusedWith(with("imm_data: 0x1234", "imm_data: 0x100000000"), "imm_data",
                "checks[13].imm_data: 0x100000000 is outside 0..4294967295");
        accepted(with("offset: 16, word: 3", "offset: 1073741824, word: 3"));
        refusedWith(with("offset: 16, word: 3", "offset: 1073741825, word: 3"), "offset: 1073741825",
                "checks[9].offset: 1073741825 is outside 0..1073741824");
        refusedWith(with("offset: 16, word: 3", "offset: -1, word: 3"), "offset: -1",
                "checks[9].offset: -1 is outside 0..1073741824");
        accepted(with("count: 1}", "count: 1048576}"));
        refusedWith(with("count: 1}", "count: 0}"), "count: 0", "checks[5].count: 0 is outside 1..1048576");

        // after names a check before this one: 1..N-1 for check N.
        accepted(with("after: 9}", "after: 10}"));
        refusedWith(with("after: 9}", "after: 11}"), "after: 11", "checks[11].after: 11 is outside 1..10");
        refusedWith(with("after: 9}", "after: 0}"), "after: 0", "checks[11].after: 0 is outside 1..10");
        refusedWith(with("  - {kind: completion, side: client, status: IBV_WC_SUCCESS, opcode: IBV_WC_RECV, byte_len: 11}",
                "  - {kind: completion, side: client, status: IBV_WC_SUCCESS, after: 1}"), "after: 1}",
                "checks[1].after: the first check comes after no other; remove after");

        // at_most is at least at_least.
        accepted(with("at_least: 0, at_most: 0", "at_least: 2, at_most: 2"));
        refusedWith(with("at_least: 0, at_most: 0", "at_least: 2, at_most: 1"), "at_most: 1",
                "checks[7].at_most: 1 is outside 2..9223372036854775806");
        refusedWith(with("at_least: 0, at_most: 0", "at_least: -1"), "at_least: -1",
                "checks[7].at_least: -1 is outside 0..9223372036854775806");
    }

    @Test
    void anErrorCompletionTakesItsStatusAlone() {
        refusedWith(with("status: IBV_WC_REM_ACCESS_ERR, after: 9}", "status: IBV_WC_REM_ACCESS_ERR, opcode:"
                + " IBV_WC_RDMA_WRITE, after: 9}"), "opcode: IBV_WC_RDMA_WRITE, after",
                "checks[11].opcode: a completion with IBV_WC_REM_ACCESS_ERR has no valid opcode in verbs; check its"
                        + " status alone");
        refusedWith(with("result: ok}", "result: ok, errno: EINVAL}"), "result: ok, errno",
                "checks[14].errno: a step that succeeds has no errno; remove it or give result: failed");
    }

    // ---- every problem, not only the first ----

    @Test
    void everyProblemOfAFileIsListedInTheOrderOfTheFile() {
        String text = FULL.replace("gid_idx: 3", "gid_idx: 300").replace("status: IBV_WC_SUCCESS", "status: OK")
                .replace("{kind: recovered, side: client}", "{kind: recovered, side: client, colour: red}");
        List<String> found = problems(text);
        assertEquals(List.of(
                "ex.yaml:" + lineOf(text, "gid_idx") + ": start.gid_idx: 300 is outside -1..255",
                found.get(1),
                "ex.yaml:" + lineOf(text, "colour") + ": checks[6].colour: unknown key; valid keys here: kind, side, after"),
                found);
        assertTrue(found.get(1).startsWith("ex.yaml:" + lineOf(text, "status: OK") + ": checks[1].status: 'OK' is not"),
                found.get(1));
        ExerciseFile.Refused refused = assertThrows(ExerciseFile.Refused.class, () -> ExerciseFile.parse("ex.yaml", text,
                false));
        assertEquals(found.get(0) + " (and 2 more: exercise check lists them)", refused.getMessage());
        assertFalse(refused.getMessage().contains("\n"));
    }

    // ---- files ----

    @Test
    void aFileIsReadAsUtf8AndAMissingOrBinaryFileIsOneProblem(@TempDir Path folder) throws Exception {
        Path file = folder.resolve("small-recv.yaml");
        Files.writeString(file, FULL, StandardCharsets.UTF_8);
        assertEquals("接收请求太小", ExerciseFile.read(file).title().in(Locale.SIMPLIFIED_CHINESE));
        ExerciseFile.Refused missing = assertThrows(ExerciseFile.Refused.class,
                () -> ExerciseFile.read(folder.resolve("none.yaml")));
        assertEquals(folder.resolve("none.yaml") + ":1: no such file", missing.getMessage());
        Path binary = folder.resolve("binary.yaml");
        Files.write(binary, new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1});
        assertEquals(binary + ":1: is not UTF-8 text", assertThrows(ExerciseFile.Refused.class,
                () -> ExerciseFile.read(binary)).getMessage());
        assertEquals(folder + ":1: is a folder; give an exercise file (.yaml)",
                assertThrows(ExerciseFile.Refused.class, () -> ExerciseFile.read(folder)).getMessage());
        Path big = folder.resolve("big.yaml");
        Files.writeString(big, "# " + "x".repeat(ExerciseFile.MAX_BYTES - 3) + "\n");
        assertEquals(ExerciseFile.MAX_BYTES, Files.size(big));
        assertEquals(big + ":1: is empty; an exercise needs at least name, title, teaches, goal, start and checks",
                assertThrows(ExerciseFile.Refused.class, () -> ExerciseFile.read(big)).getMessage());
        Files.writeString(big, "# " + "x".repeat(ExerciseFile.MAX_BYTES - 2) + "\n");
        assertEquals(big + ":1: is larger than 1 MiB; an exercise file is a few kilobytes of YAML",
                assertThrows(ExerciseFile.Refused.class, () -> ExerciseFile.read(big)).getMessage());
    }

    @Test
    void aCounterCheckKnowsEveryCounterOfSoft0AndRxesOwnTwo() {
        java.util.Set<String> soft0 = java.util.Arrays.stream(org.rdmalab.softroce.Counter.values())
                .map(org.rdmalab.softroce.Counter::counterName).collect(java.util.stream.Collectors.toSet());
        java.util.Set<String> known = new java.util.HashSet<>(Check.COUNTERS);
        assertTrue(known.containsAll(soft0), soft0.toString());
        known.removeAll(soft0);
        assertEquals(java.util.Set.of("ack_deferred", "link_downed"), known);
    }

    @Test
    void anArgumentNamesAFileWhenItExistsOrEndsInYaml(@TempDir Path folder) throws Exception {
        assertTrue(ExerciseFile.namesFile("mine.yaml"));
        assertTrue(ExerciseFile.namesFile("MINE.YML"));
        assertFalse(ExerciseFile.namesFile("drop-ack"));
        Path plain = Files.writeString(folder.resolve("exercise"), FULL);
        assertTrue(ExerciseFile.namesFile(plain.toString()));
        assertInstanceOf(Exercise.class, ExerciseFile.read(plain));
    }
}
