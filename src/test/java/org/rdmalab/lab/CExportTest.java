package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.control.Timeouts;
import org.rdmalab.testing.Ports;
import org.rdmalab.testing.StandInVerbs;
import org.rdmalab.testing.Tools;
import org.rdmalab.verbs.WrOpcode;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/** The session as one C program: what it says, that gcc accepts it, and that it runs on the stand-in. */
class CExportTest {

    private static final CExport.ExtraWork WRITE_WITH_IMM = new CExport.ExtraWork(WrOpcode.RDMA_WRITE_WITH_IMM, 0, 6,
            2, "Lab42!".getBytes(StandardCharsets.US_ASCII), 0x1234, true, 0, 0);

    @TempDir
    Path dir;

    private final List<LabSession> sessions = new ArrayList<>();

    @AfterEach
    void close() {
        sessions.forEach(LabSession::close);
    }

    private LabSession session(Role role, Flows.SeedFlow flow, PeerLink link) {
        LabSession session = new LabSession(role, Backends.installed(), DeviceOptions.defaults(), link,
                Flows.seed(role, flow, Flows.Settings.seed("soft0")));
        sessions.add(session);
        return session;
    }

    private LabSession session(Role role, Flows.SeedFlow flow) {
        return session(role, flow, PeerLinks.memoryPair(Duration.ofSeconds(1))[role == Role.SERVER ? 0 : 1]);
    }

    private static Step step(LabSession session, String id) {
        return session.steps().stream().filter(step -> step.id().equals(id)).findFirst().orElseThrow();
    }

    /** The values the issue names: path MTU 1024, GID 3, ACK timeout 14. */
    private static LabSession chosen(LabSession session) {
        step(session, "modify-rtr").parameter("path_mtu").set("1024");
        step(session, "query-port").parameter("gid_idx").set("3");
        step(session, "modify-rts").parameter("timeout").set("14");
        return session;
    }

    private Path write(String name, String program) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, program);
        return file;
    }

    private static String run(Path directory, List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "took too long: " + command);
        assertEquals(0, process.exitValue(), () -> String.join(" ", command) + "\n" + output);
        return output;
    }

    /** gcc -Wall -Werror -o x file.c -libverbs against the real header and library. */
    private void compileWithLibibverbs(Path source) throws Exception {
        Path gcc = Tools.require("gcc", "gcc");
        if (!Files.exists(Path.of("/usr/include/infiniband/verbs.h"))) {
            Tools.unavailable("<infiniband/verbs.h> is missing (apt-get install libibverbs-dev)");
        }
        run(dir, List.of(gcc.toString(), "-Wall", "-Werror", "-o", dir.resolve("x").toString(), source.toString(),
                "-libverbs"));
        assertTrue(Files.isExecutable(dir.resolve("x")));
    }

    @Test
    void theClientsWriteOnlyFlowWithChosenValuesSaysThemInC() {
        String program = CExport.of(chosen(session(Role.CLIENT, Flows.SeedFlow.WRITE_ONLY)), List.of(WRITE_WITH_IMM));

        assertTrue(program.contains("attr.path_mtu = IBV_MTU_1024;"), program);
        assertFalse(program.contains("IBV_MTU_256"), "both roles use the chosen MTU");
        assertTrue(program.contains("config.gid_idx = 3;"));
        assertTrue(program.contains("attr.ah_attr.grh.sgid_index = config.gid_idx;"));
        assertTrue(program.contains("attr.timeout = 0xe;"));
        assertTrue(program.matches("(?s).*flags = IBV_QP_STATE \\| IBV_QP_AV \\| IBV_QP_PATH_MTU \\|[^;]* IBV_QP_DEST_QPN;.*"),
                program);
        assertTrue(program.contains("} __attribute__((packed));"));
        assertTrue(program.contains("strcpy(res->buf, \"HelloWorld\");"));
        assertTrue(program.contains("sr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;"));
        assertTrue(program.contains("sr.imm_data = htonl(0x1234);"));
        assertTrue(program.contains("sr.wr.rdma.remote_addr = res->remote_props.addr + 2;"));
        assertTrue(program.contains("0x4c, 0x61, 0x62, 0x34, 0x32, 0x21"), "the data, byte for byte");
        assertTrue(program.contains("rc = ibv_post_recv(res->qp, &rr, &bad_wr);"), "the server posts the receive");
        assertTrue(program.contains("usage: %s <local_ip> <ib_dev> [<server_ip>]"));
        assertFalse(program.contains("control protocol"), "the in-memory link is the seed's exchange");
        // Each step's C code is in the program as the lab shows it.
        LabSession shown = sessions.get(0);
        for (Step step : shown.steps()) {
            for (String line : step.cCode(shown).split("\n")) {
                assertTrue(program.contains(line.strip()), step.id() + ": " + line);
            }
        }
    }

    /** The lines of the block that starts at {@code marker}, up to the next block's, each stripped. */
    private static List<String> block(String program, String marker) {
        int start = program.indexOf(marker);
        assertTrue(start >= 0, () -> marker + " in\n" + program);
        int end = program.indexOf("/* ----", start + marker.length());
        return program.substring(start + marker.length(), end < 0 ? program.length() : end).lines()
                .map(String::strip).filter(line -> !line.isEmpty()).toList();
    }

    /**
     * Every opcode's extras, field by field, with values that differ from each other and from the
     * defaults: the SGE (offset, length), the work request id, opcode and flags, the immediate only
     * for the WITH_IMM opcodes, the RDMA or atomic remote fields only for the opcodes that carry
     * them (compare/add and swap as unsigned 64-bit constants, swap only for compare-and-swap), and
     * on the peer's side a receive only for what consumes one. A second, unsignaled extra at offset 0
     * is written without offsets and without a poll.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = WrOpcode.class, names = {"RDMA_WRITE",
            "RDMA_WRITE_WITH_IMM", "SEND", "SEND_WITH_IMM", "RDMA_READ", "ATOMIC_CMP_AND_SWP", "ATOMIC_FETCH_AND_ADD"})
    void everyOpcodesExtraIsWrittenFieldByField(WrOpcode opcode) {
        boolean atomic = opcode.isAtomic();
        boolean rdma = opcode == WrOpcode.RDMA_WRITE || opcode == WrOpcode.RDMA_WRITE_WITH_IMM
                || opcode == WrOpcode.RDMA_READ;
        boolean imm = opcode == WrOpcode.RDMA_WRITE_WITH_IMM || opcode == WrOpcode.SEND_WITH_IMM;
        boolean receive = opcode == WrOpcode.SEND || opcode == WrOpcode.SEND_WITH_IMM
                || opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
        byte[] data = atomic ? null : new byte[] {0x41, 0x2a, 0x7f};
        CExport.ExtraWork first = new CExport.ExtraWork(opcode, 16, atomic ? 8 : 5, 24, data, 0xabcde, true,
                0x8000_0000_0000_0005L, 12_345_678_901L);
        CExport.ExtraWork second = new CExport.ExtraWork(opcode, 0, 8, 0, null, 0x77, false, 3, 4);
        assertEquals(receive, first.consumesReceive());
        LabSession session = session(Role.CLIENT, Flows.SeedFlow.WRITE_ONLY);
        step(session, "reg-mr").parameter("size").set("64");
        step(session, "create-qp").parameter("sq_sig_all").set("0");
        String program = CExport.of(session, List.of(first, second));
        String name = opcode.cName();

        List<String> posted = block(program, "/* ---- extra 1: " + name + " ---- */");
        assertTrue(posted.contains("sge.addr = (uintptr_t) res->buf + 16;"), posted::toString);
        assertTrue(posted.contains("sge.length = " + (atomic ? 8 : 5) + ";"), posted::toString);
        assertTrue(posted.contains("sge.lkey = res->mr->lkey;"), posted::toString);
        assertTrue(posted.contains("sr.wr_id = 101;"), posted::toString);
        assertTrue(posted.contains("sr.opcode = " + name + ";"), posted::toString);
        assertTrue(posted.contains("sr.send_flags = IBV_SEND_SIGNALED;"), posted::toString);
        assertEquals(imm, posted.contains("sr.imm_data = htonl(0xabcde);"), posted::toString);
        assertEquals(imm, posted.stream().anyMatch(line -> line.startsWith("sr.imm_data")), posted::toString);
        assertEquals(!atomic, posted.contains("memcpy(res->buf + 16, data, sizeof data);"), posted::toString);
        assertEquals(!atomic, posted.contains("0x41, 0x2a, 0x7f"), posted::toString);
        assertEquals(rdma, posted.contains("sr.wr.rdma.remote_addr = res->remote_props.addr + 24;"),
                posted::toString);
        assertEquals(rdma, posted.contains("sr.wr.rdma.rkey = res->remote_props.rkey;"), posted::toString);
        assertEquals(atomic, posted.contains("sr.wr.atomic.remote_addr = res->remote_props.addr + 24;"),
                posted::toString);
        assertEquals(atomic, posted.contains("sr.wr.atomic.rkey = res->remote_props.rkey;"), posted::toString);
        assertEquals(atomic, posted.contains("sr.wr.atomic.compare_add = 9223372036854775813ULL;"),
                posted::toString);
        assertEquals(opcode == WrOpcode.ATOMIC_CMP_AND_SWP, posted.contains("sr.wr.atomic.swap = 12345678901ULL;"),
                posted::toString);
        assertEquals(opcode == WrOpcode.ATOMIC_CMP_AND_SWP,
                posted.stream().anyMatch(line -> line.startsWith("sr.wr.atomic.swap")), posted::toString);
        assertTrue(posted.contains("rc = ibv_post_send(res->qp, &sr, &bad_wr);"), posted::toString);
        assertTrue(posted.stream().anyMatch(line -> line.contains("extra 1: completion")),
                () -> "a signaled extra is polled for: " + posted);

        List<String> unsignaled = block(program, "/* ---- extra 2: " + name + " ---- */");
        assertTrue(unsignaled.contains("sge.addr = (uintptr_t) res->buf;"), unsignaled::toString);
        assertTrue(unsignaled.contains("sr.wr_id = 102;"), unsignaled::toString);
        assertTrue(unsignaled.contains("sr.send_flags = 0;"), unsignaled::toString);
        assertEquals(imm, unsignaled.contains("sr.imm_data = htonl(0x77);"), unsignaled::toString);
        if (rdma || atomic) {
            String kind = atomic ? "atomic" : "rdma";
            assertTrue(unsignaled.contains("sr.wr." + kind + ".remote_addr = res->remote_props.addr;"),
                    unsignaled::toString);
        }
        assertFalse(unsignaled.stream().anyMatch(line -> line.contains("extra 2: completion")),
                () -> "an unsignaled extra is not polled for: " + unsignaled);
        step(session, "create-qp").parameter("sq_sig_all").set("1");
        assertTrue(block(CExport.of(session, List.of(first, second)), "/* ---- extra 2: " + name + " ---- */")
                .stream().anyMatch(line -> line.contains("extra 2: completion")), "sq_sig_all signals every send");

        List<String> peer = block(program, "/* ---- extra 1: " + name + " by the peer ---- */");
        assertEquals(receive, peer.contains("rc = ibv_post_recv(res->qp, &rr, &bad_wr);"), peer::toString);
        assertEquals(receive, peer.contains("rr.wr_id = 1001;"), peer::toString);
        assertEquals(receive, peer.stream().anyMatch(line -> line.contains("extra 1 (receive): completion")),
                peer::toString);
        assertFalse(peer.stream().anyMatch(line -> line.contains("ibv_post_send")), peer::toString);
        assertEquals(receive, block(program, "/* ---- extra 2: " + name + " by the peer ---- */")
                .contains("rr.wr_id = 1002;"));
    }

    /** An extra that ends at the buffer's last byte fits; one byte further does not, by length or by data. */
    @Test
    void anExtraFitsTheBufferUpToItsLastByte() {
        LabSession session = session(Role.CLIENT, Flows.SeedFlow.WRITE_ONLY);
        step(session, "reg-mr").parameter("size").set("64");
        assertTrue(CExport.of(session, List.of(new CExport.ExtraWork(WrOpcode.RDMA_WRITE, 56, 8, 0, new byte[8], 0,
                true, 0, 0))).contains("sge.addr = (uintptr_t) res->buf + 56;"));
        assertThrows(IllegalArgumentException.class, () -> CExport.of(session, List.of(new CExport.ExtraWork(
                WrOpcode.RDMA_WRITE, 57, 8, 0, null, 0, true, 0, 0))));
        assertThrows(IllegalArgumentException.class, () -> CExport.of(session, List.of(new CExport.ExtraWork(
                WrOpcode.RDMA_WRITE, 57, 7, 0, new byte[8], 0, true, 0, 0))));
        assertThrows(IllegalArgumentException.class, () -> new CExport.ExtraWork(WrOpcode.ATOMIC_FETCH_AND_ADD, 0,
                8, 4, null, 0, true, 0, 0), "an atomic's remote offset is 8-byte aligned");
        assertThrows(IllegalArgumentException.class, () -> new CExport.ExtraWork(WrOpcode.RDMA_WRITE, -1, 8, 0,
                null, 0, true, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new CExport.ExtraWork(WrOpcode.RDMA_WRITE, 0, -1, 0,
                null, 0, true, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new CExport.ExtraWork(WrOpcode.RDMA_WRITE, 0, 8, -1,
                null, 0, true, 0, 0));
    }

    @Test
    void theSeedClientAndServerFlowsCompileWithGccAndLibibverbs() throws Exception {
        compileWithLibibverbs(write("client.c",
                CExport.of(chosen(session(Role.CLIENT, Flows.SeedFlow.RC_EXAMPLE)), List.of(WRITE_WITH_IMM))));
        compileWithLibibverbs(write("server.c",
                CExport.of(chosen(session(Role.SERVER, Flows.SeedFlow.WRITE_ONLY)), List.of(WRITE_WITH_IMM,
                        new CExport.ExtraWork(WrOpcode.ATOMIC_FETCH_AND_ADD, 0, 8, 0, null, 0, false, 5, 0)))));
        // gid_idx auto before the port was queried: the program picks the GID itself.
        LabSession auto = session(Role.CLIENT, Flows.SeedFlow.WRITE_ONLY);
        String program = CExport.of(auto, List.of());
        assertTrue(program.contains("config.gid_idx = best_gid_index(res->ctx, 1, res->port_attr.gid_tbl_len)"));
        compileWithLibibverbs(write("auto.c", program));
    }

    @Test
    void anExportedServerAndClientRunTheSeedFlowAndTheExtraOnTheStandIn() throws Exception {
        Path library = StandInVerbs.build(dir);
        Path gcc = Tools.require("gcc", "gcc");
        Path source = write("export.c",
                CExport.of(chosen(session(Role.CLIENT, Flows.SeedFlow.RC_EXAMPLE)), List.of(WRITE_WITH_IMM)));
        int tcpPort = Ports.freeTcpPort();
        run(dir, List.of(gcc.toString(), "-Wall", "-Werror", "-DTCP_PORT=" + tcpPort, "-Dmain=rdmalab_export_main",
                "-c", "-o", "export.o", source.toString()));
        run(dir, List.of(gcc.toString(), "-Wall", "-Werror", "-o", "runner",
                Path.of("src/test/c/export_driver.c").toAbsolutePath().toString(), "export.o", library.toString(),
                "-Wl,-rpath," + dir, "-lpthread"));

        String output = run(dir, List.of(dir.resolve("runner").toString()));

        assertTrue(output.contains("driver: server 0, client 0"), output);
        assertTrue(output.contains("Message is: 'ServerSend'"), output);
        assertTrue(output.contains("Contents of server's buffer: 'ServerSend'"), output);
        assertTrue(output.contains("Contents of server buffer: 'HelloWorld'"), output);
        assertTrue(output.contains("extra 1: IBV_WR_RDMA_WRITE_WITH_IMM of 6 bytes was posted"), output);
        assertTrue(output.contains("extra 1: received 6 bytes, immediate 0x1234"), output);
        // The WRITE put "Lab42!" at offset 2 of the server's "HelloWorld".
        assertTrue(output.contains("Buffer after the extra work: 'HeLab42!ld"), output);
        assertEquals(2, output.split("test result is 0", -1).length - 1, output);
    }

    private static void runThrough(LabSession session, String id) {
        while (true) {
            Step step = session.nextStep().orElseThrow();
            StepResult result = session.runNext().orElseThrow();
            assertTrue(result.ok(), () -> step.title() + ": " + result.summary());
            if (step.id().equals(id)) {
                return;
            }
        }
    }

    @Test
    void aSessionThatRanExportsWhatItRanAndStillCompiles() throws Exception {
        int udpPort = Ports.freeUdpPort();
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(10));
        LabSession server = new LabSession(Role.SERVER, Backends.installed(), DeviceOptions.defaults()
                .withAddress(DeviceOptions.parseAddress("127.0.0.1")).withUdpPort(udpPort), links[0],
                Flows.seed(Role.SERVER, Flows.SeedFlow.WRITE_ONLY, Flows.Settings.seed("soft0")));
        LabSession client = new LabSession(Role.CLIENT, Backends.installed(), DeviceOptions.defaults()
                .withAddress(DeviceOptions.parseAddress("127.0.0.2")).withUdpPort(udpPort), links[1],
                Flows.seed(Role.CLIENT, Flows.SeedFlow.WRITE_ONLY, Flows.Settings.seed("soft0")));
        sessions.add(server);
        sessions.add(client);
        // Up to RTS: the teardown step forgets the chosen GID and the peer's data.
        CompletableFuture<?> serverRun = CompletableFuture.runAsync(() -> runThrough(server, "modify-rts"));
        runThrough(client, "modify-rts");
        serverRun.get(30, TimeUnit.SECONDS);

        String program = CExport.of(client, List.of());
        assertTrue(program.contains("config.gid_idx = 3 /* auto: ::ffff:127.0.0.2, RoCE v2 */;"), program);
        assertTrue(program.matches("(?s).*attr\\.dest_qp_num = remote_con_data\\.qp_num;  /\\* 0x[0-9a-f]+ \\*/.*"));
        compileWithLibibverbs(write("ran.c", program));
    }

    @Test
    void theLabProtocolIsExportedAsTheSeedsExchangeAndSaysSo() {
        PeerLink lab = PeerLinks.lab(new PeerLinks.Endpoint(Role.SERVER, "127.0.0.1", null, 12025,
                Timeouts.all(Duration.ofSeconds(1))));
        LabSession session = new LabSession(Role.SERVER, Backends.installed(), DeviceOptions.defaults(), lab,
                Flows.seed(Role.SERVER, Flows.SeedFlow.WRITE_ONLY, Flows.Settings.seed("soft0"), true));
        sessions.add(session);
        String program = CExport.of(session, List.of());
        assertTrue(program.contains("The session used the lab control protocol; this program speaks the seed's\n"
                + " * exchange instead"), program);
        assertTrue(program.contains("the seed's protocol has no such message: skipped"), "the client's snapshot step");
    }

    @Test
    void whatTheExportCannotDoIsAClearError() {
        LabSession pingpong = new LabSession(Role.CLIENT, Backends.installed(), DeviceOptions.defaults(),
                PeerLinks.memoryPair(Duration.ofSeconds(1))[1], Flows.pingpong(Role.CLIENT,
                Flows.Settings.seed("soft0"), 10));
        sessions.add(pingpong);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CExport.of(pingpong, List.of()));
        assertTrue(e.getMessage().contains("ibv_rc_pingpong"), e.getMessage());

        LabSession client = session(Role.CLIENT, Flows.SeedFlow.WRITE_ONLY);
        e = assertThrows(IllegalArgumentException.class, () -> CExport.of(client,
                List.of(new CExport.ExtraWork(WrOpcode.RDMA_WRITE, 8, 6, 0, null, 0, true, 0, 0))));
        assertEquals("extra IBV_WR_RDMA_WRITE at local offset 8 does not fit the 11-byte buffer", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> new CExport.ExtraWork(WrOpcode.ATOMIC_CMP_AND_SWP, 0, 4, 0, null, 0, true, 1, 2));
        assertTrue(e.getMessage().startsWith("IBV_WR_ATOMIC_CMP_AND_SWP works on one 8-byte word"), e.getMessage());
    }

    /** The part of the program that one role runs. */
    private static String part(String program, Role role) {
        int client = program.indexOf("static int run_client(");
        return role == Role.SERVER ? program.substring(program.indexOf("static int run_server("), client)
                : program.substring(client);
    }

    @Test
    void theOtherRoleRunsTheSameFlowWithTheSessionsSharedValuesAndItsOwnBuffer() {
        String writeOnly = CExport.of(chosen(session(Role.CLIENT, Flows.SeedFlow.WRITE_ONLY)), List.of());
        assertTrue(writeOnly.contains("the seed's write-only flow as one C program, from a client session."));
        assertFalse(part(writeOnly, Role.SERVER).contains("(post-send)"), "no SEND in the write-only flow");
        assertTrue(part(writeOnly, Role.SERVER).contains("attr.timeout = 0xe;"), "the chosen ACK timeout is shared");

        String rc = CExport.of(chosen(session(Role.CLIENT, Flows.SeedFlow.RC_EXAMPLE)), List.of());
        assertTrue(rc.contains("the seed's rc-example flow as one C program, from a client session."));
        String server = part(rc, Role.SERVER);
        assertTrue(server.contains("(post-send)"), server);
        assertTrue(server.contains("attr.timeout = 0xe;"), server);
        assertTrue(server.contains("\"" + Flows.SERVER_SEND_TEXT + "\""), "the server keeps its own buffer text");
        assertTrue(part(rc, Role.CLIENT).contains("(post-recv)"));
        assertFalse(part(rc, Role.CLIENT).contains(Flows.SERVER_SEND_TEXT));
    }

    @Test
    void theHeaderCountsTheExtrasAndTheStepsAreNumberedFromOne() {
        LabSession session = session(Role.SERVER, Flows.SeedFlow.WRITE_ONLY);
        assertFalse(CExport.of(session, List.of()).contains("extra work request"));
        assertTrue(CExport.of(session, List.of(WRITE_WITH_IMM)).contains(
                " * After the seed's steps the server posts 1 extra work request.\n"));
        String two = CExport.of(session, List.of(WRITE_WITH_IMM, WRITE_WITH_IMM));
        assertTrue(two.contains(" * After the seed's steps the server posts 2 extra work requests.\n"), two);
        List<Step> steps = session.steps();
        String server = part(two, Role.SERVER);
        for (int i = 0; i < steps.size(); i++) {
            assertTrue(server.contains("/* ---- " + (i + 1) + ". " + steps.get(i).title() + " (" + steps.get(i).id()
                    + ") ---- */"), steps.get(i).id());
        }
    }

    @Test
    void everyStepIsFollowedByTheCheckOfItsResult() {
        LabSession session = session(Role.CLIENT, Flows.SeedFlow.RC_EXAMPLE);
        String program = part(CExport.of(session, List.of()), Role.CLIENT);
        java.util.Map<Class<?>, String> checks = new java.util.LinkedHashMap<>();
        checks.put(DeviceSteps.OpenDevice.class, "fprintf(stderr, \"no device %s could be opened (ibv_devices lists them)\\n\", config.dev_name);");
        checks.put(DeviceSteps.QueryPort.class, "strerror(rc < 0 ? errno : rc));");
        checks.put(ResourceSteps.AllocatePd.class, "fprintf(stderr, \"ibv_alloc_pd failed\\n\");");
        checks.put(ResourceSteps.CreateCq.class, "fprintf(stderr, \"ibv_create_cq failed\\n\");");
        checks.put(ResourceSteps.RegisterMr.class, "fprintf(stderr, \"ibv_reg_mr failed\\n\");");
        checks.put(ResourceSteps.CreateQp.class, "fprintf(stdout, \"QP was created, QP number=0x%x\\n\", res->qp->qp_num);");
        checks.put(ConnectSteps.Connect.class, "fprintf(stdout, \"TCP connection was established\\n\");");
        checks.put(ConnectSteps.Exchange.class, "fprintf(stdout, \"Remote rkey = 0x%x\\n\", remote_con_data.rkey);");
        checks.put(ConnectSteps.Sync.class, "fprintf(stderr, \"sync error: the peer went away\\n\");");
        checks.put(DataSteps.PostRecv.class, "fprintf(stdout, \"Receive Request was posted\\n\");");
        checks.put(DataSteps.Teardown.class, "res->sock = -1;");
        int checked = 0;
        for (Step step : session.steps()) {
            List<String> lines = block(program, "(" + step.id() + ") ---- */");
            if (step instanceof ModifySteps.Modify modify) {
                assertTrue(lines.contains("fprintf(stderr, \"failed to modify QP state to " + modify.target().name()
                        + ": %s\\n\", strerror(rc));"), lines::toString);
                checked++;
            } else if (checks.containsKey(step.getClass())) {
                String check = checks.get(step.getClass());
                assertTrue(lines.stream().anyMatch(line -> line.endsWith(check)), () -> step.id() + ": " + lines);
                checked++;
            }
        }
        assertTrue(checked >= 13, "steps checked: " + checked);
    }

    @Test
    void theDataCommentShowsPrintableBytesAndADotForTheRest() {
        LabSession session = session(Role.CLIENT, Flows.SeedFlow.WRITE_ONLY);
        step(session, "reg-mr").parameter("size").set("64");
        byte[] data = {' ', '~', 0x1f, 0x7f, '*', '/', '"', '\\', 'a', (byte) 0xe9};
        String program = CExport.of(session, List.of(new CExport.ExtraWork(WrOpcode.SEND, 0, data.length, 0, data,
                0, true, 0, 0)));
        List<String> posted = block(program, "/* ---- extra 1: IBV_WR_SEND ---- */");
        assertTrue(posted.contains("};  /* \" ~......a.\" */"), posted::toString);
    }
}
