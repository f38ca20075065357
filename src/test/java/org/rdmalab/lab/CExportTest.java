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
}
