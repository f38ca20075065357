package org.rdmalab.app.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rdmalab.app.LoopbackLab;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.verbs.spi.VerbsProvider;

/**
 * The window's view models without the toolkit: the loopback lab driven as the buttons drive it,
 * with a single "UI" thread standing in for the JavaFX thread and real worker threads.
 */
class LabViewModelTest {

    @RegisterExtension
    final LoopbackLab loopback = new LoopbackLab();

    private LabViewModel lab;

    @BeforeEach
    void start() {
        lab = loopback.lab();
    }

    @Test
    void listsTheSoftwareDeviceWithItsGidTableAndRecommendsTheIpv4V2Entry() {
        loopback.await("the GID table", () -> !lab.setup().gids().isEmpty());
        loopback.onUi(() -> {
            assertEquals("soft0", lab.setup().deviceProperty().get().name());
            assertEquals("-1", lab.setup().gidIndexProperty().get(), "the seed's default is kept");
            assertEquals(3, lab.setup().recommended().orElseThrow().index());
            assertTrue(lab.setup().gidWarningProperty().get().contains("fails with EINVAL"),
                    lab.setup().gidWarningProperty().get());
            lab.setup().useRecommendedGid();
            assertEquals("3", lab.setup().gidIndexProperty().get());
            assertEquals("", lab.setup().gidWarningProperty().get());
            return null;
        });
    }

    /** The IPv4 addresses of the setup's GID table, as the picker lists them (on the UI thread). */
    private List<String> tableAddresses() {
        return lab.setup().gids().stream().map(choice -> choice.entry().ipAddress())
                .filter(address -> address != null && !address.isEmpty()).distinct().toList();
    }

    @Test
    void theGidTableFollowsTheModeAndTheLocalIpAsAClientOfTwoMachines() {
        loopback.await("the GID table", () -> !lab.setup().gids().isEmpty());
        assertEquals(List.of("127.0.0.1"), loopback.onUi(this::tableAddresses), "the loopback lab queries the server's address");
        loopback.onUi(() -> {
            lab.setup().roleProperty().set(org.rdmalab.lab.Role.CLIENT);
            lab.setup().localIpProperty().set("127.0.0.2");
            return null;
        });
        // Still the loopback lab: its table stays the server's whatever the two-machines row says.
        assertEquals(List.of("127.0.0.1"), loopback.onUi(this::tableAddresses));
        loopback.run(() -> lab.setup().modeProperty().set(LabSetup.Mode.TWO_MACHINES));
        loopback.await("127.0.0.2's table after the mode changed", () -> tableAddresses().equals(List.of("127.0.0.2")));
        loopback.onUi(() -> {
            assertTrue(lab.setup().recommendationProperty().get().contains("127.0.0.2"),
                    lab.setup().recommendationProperty().get());
            // Half typed: not an address yet, so the last table stays instead of falling back to another's.
            lab.setup().localIpProperty().set("127.0.0.");
            return null;
        });
        assertEquals(List.of("127.0.0.2"), loopback.onUi(this::tableAddresses));
        loopback.run(() -> lab.setup().localIpProperty().set("127.0.0.3"));
        loopback.await("127.0.0.3's table after the local IP changed", () -> tableAddresses().equals(List.of("127.0.0.3")));
        loopback.run(() -> lab.setup().modeProperty().set(LabSetup.Mode.LOOPBACK));
        loopback.await("the server's table back in the loopback lab", () -> tableAddresses().equals(List.of("127.0.0.1")));
    }

    @Test
    void aFailingBackendIsReportedInTheStatusLine() {
        VerbsProvider broken = new VerbsProvider() {
            @Override
            public String name() {
                return "libibverbs";
            }

            @Override
            public List<Device> devices(DeviceOptions options) throws VerbsException {
                throw new VerbsException("ibv_get_device_list", Errno.ENOSYS, "no RDMA in this kernel");
            }
        };
        SetupViewModel setup = new SetupViewModel(new Backends(List.of(broken)), DeviceOptions.defaults(),
                Runnable::run, Runnable::run);
        assertEquals(List.of(), setup.devices());
        assertEquals("0 device(s); libibverbs: no RDMA in this kernel", setup.statusProperty().get());
    }

    @Test
    void theLoopbackLabRunsTheSeedToHelloWorldWithTheRecommendedGid() {
        BuffersViewModel buffers = loopback.onUi(() -> new BuffersViewModel(lab, loopback.ui()));
        loopback.onUi(() -> {
            lab.apply(lab.defaultSetup().withGidIndex("3"));
            lab.runAllToEnd();
            return null;
        });
        loopback.await("both sides to finish", () -> loopback.idle() && loopback.side("server").nextIndexProperty().get()
                == loopback.side("server").steps().size());
        loopback.onUi(() -> {
            SideViewModel server = loopback.side("server");
            SideViewModel client = loopback.side("client");
            assertEquals(QpState.RTS, server.localStateProperty().get());
            assertEquals(QpState.RTS, client.localStateProperty().get());
            StepRow last = server.steps().get(server.steps().size() - 1);
            assertEquals("\"HelloWorld\"", last.summaryProperty().get());
            assertTrue(lab.completions().stream().anyMatch(row -> row.side().equals("client")
                    && row.completion().status() == WcStatus.SUCCESS), lab.completions().toString());
            assertTrue(lab.verbLog().rows().stream().anyMatch(row -> row.verb().equals("ibv_modify_qp")));
            assertTrue(lab.controlLog().rows().size() >= 2, "the exchange is in the TCP log");
            BuffersViewModel.Pane serverBuffer = buffers.panes().get(0);
            assertEquals("server", serverBuffer.key());
            assertTrue(serverBuffer.caption().contains("the client's remote buffer"), serverBuffer.caption());
            assertEquals("HelloWorld", new String(serverBuffer.source().read(0, 10), java.nio.charset.StandardCharsets.US_ASCII));
            assertEquals(1, serverBuffer.changed().size(), "the bytes the WRITE changed are highlighted");
            assertEquals(0, serverBuffer.changed().get(0)[0]);
            assertEquals(10, serverBuffer.changed().get(0)[1], "HelloWorld's NUL was already 0");
            return null;
        });
    }

    @Test
    void theTrafficLengthFollowsTheDataUntilTheUserSetsIt() {
        TrafficViewModel traffic = loopback.onUi(() -> new TrafficViewModel(lab, loopback.ui()));
        java.util.List<String> lengths = loopback.onUi(() -> {
            java.util.List<String> seen = new java.util.ArrayList<>();
            seen.add(traffic.lengthProperty().get());
            traffic.dataProperty().set("0123456789");
            seen.add(traffic.lengthProperty().get());
            traffic.dataProperty().set("ab\\0");
            seen.add(traffic.lengthProperty().get());
            traffic.hexDataProperty().set(true);
            traffic.dataProperty().set("01 02 0");
            seen.add(traffic.lengthProperty().get());
            traffic.dataProperty().set("01 02 03 04");
            seen.add(traffic.lengthProperty().get());
            traffic.hexDataProperty().set(false);
            traffic.lengthProperty().set("4");
            traffic.dataProperty().set("HelloWorld");
            seen.add(traffic.lengthProperty().get());
            return seen;
        });
        // The seed's 11 bytes; a 10-byte text; "ab\0" is 3; half-typed hex keeps the last count; 4 bytes of hex;
        // then the user's own length stays.
        assertEquals(java.util.List.of("11", "10", "3", "3", "4", "4"), lengths);
        assertEquals(4, loopback.onUi(() -> traffic.request().length()), "the request posts the user's length");
    }

    @Test
    void trafficAfterTheSeedReachesThePeerAndExportAsCCarriesItAndCompiles(@org.junit.jupiter.api.io.TempDir
                                                                              java.nio.file.Path dir) throws Exception {
        loopback.onUi(() -> {
            lab.apply(lab.defaultSetup().withGidIndex("3"));
            lab.runAllToEnd();
            return null;
        });
        loopback.await("the seed", () -> loopback.idle() && loopback.side("server").nextIndexProperty().get() == loopback.side("server").steps().size());
        TrafficViewModel traffic = loopback.onUi(() -> new TrafficViewModel(lab, loopback.ui()));
        loopback.onUi(() -> {
            traffic.sideProperty().set(loopback.side("server"));
            traffic.receiveLengthProperty().set("11");
            traffic.postReceive();
            return null;
        });
        loopback.await("the receive", () -> loopback.idle() && traffic.outcomeProperty().get().contains("RECV"));
        loopback.onUi(() -> {
            traffic.sideProperty().set(loopback.side("client"));
            traffic.opcodeProperty().set(org.rdmalab.verbs.WrOpcode.SEND_WITH_IMM);
            traffic.dataProperty().set("Lab42\\0");
            traffic.lengthProperty().set("6");
            traffic.immProperty().set("0xbeef");
            traffic.post();
            return null;
        });
        loopback.await("the SEND and its receive", () -> loopback.idle() && lab.completions().stream()
                .anyMatch(row -> row.side().equals("server") && row.completion().opcode() == org.rdmalab.verbs.WcOpcode.RECV));
        loopback.onUi(() -> {
            assertTrue(traffic.outcomeProperty().get().contains("IBV_WC_SUCCESS"), traffic.outcomeProperty().get());
            CompletionRow received = lab.completions().stream().filter(row -> row.side().equals("server")).findFirst()
                    .orElseThrow();
            assertEquals(0xbeef, received.completion().immData());
            assertEquals(6, received.completion().byteLength());
            CompletionRow sent = lab.completions().stream().filter(row -> row.side().equals("client")
                    && row.completion().opcode() == org.rdmalab.verbs.WcOpcode.SEND).findFirst().orElseThrow();
            assertTrue(sent.sincePostNanos() > 0, "the SEND's completion says how long after its post");
            traffic.opcodeProperty().set(org.rdmalab.verbs.WrOpcode.RDMA_WRITE);
            traffic.dataProperty().set("zz");
            traffic.lengthProperty().set("2");
            traffic.remoteOffsetProperty().set("20");
            traffic.post();
            return null;
        });
        loopback.await("the refused WRITE", () -> loopback.idle() && traffic.outcomeProperty().get().startsWith("not posted")
                || traffic.outcomeProperty().get().contains("REM_ACCESS"));
        java.nio.file.Path file = dir.resolve("client.c");
        String line = loopback.onUi(() -> {
            lab.selectedSideProperty().set(loopback.side("client"));
            return lab.exportC(file);
        });
        assertTrue(line.contains("2 posted request(s)"), line);
        String program = java.nio.file.Files.readString(file);
        assertTrue(program.contains("IBV_WR_SEND_WITH_IMM"), "the SEND the form posted is in the program");
        java.nio.file.Path gcc = org.rdmalab.testing.Tools.require("gcc", "gcc");
        if (!java.nio.file.Files.exists(java.nio.file.Path.of("/usr/include/infiniband/verbs.h"))) {
            org.rdmalab.testing.Tools.unavailable("<infiniband/verbs.h> is missing (apt-get install libibverbs-dev)");
        }
        Process compile = new ProcessBuilder(gcc.toString(), "-Wall", "-Werror", "-o", dir.resolve("client").toString(),
                file.toString(), "-libverbs").redirectErrorStream(true).start();
        String output = new String(compile.getInputStream().readAllBytes());
        assertTrue(compile.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, compile.exitValue(), output);
    }

    @Test
    void gidMinusOneFailsRtrAndTheOneClickFixLetsTheFlowGoOn() {
        loopback.await("the GID table", () -> !lab.setup().gids().isEmpty());
        loopback.onUi(() -> {
            lab.apply(lab.defaultSetup());
            lab.runAllToEnd();
            return null;
        });
        loopback.await("RTR to fail", () -> loopback.idle() && loopback.side("client").failedIndex() >= 0);
        loopback.onUi(() -> {
            SideViewModel client = loopback.side("client");
            StepRow failed = client.steps().get(client.failedIndex());
            assertEquals("modify-rtr", failed.step().id());
            assertTrue(failed.summaryProperty().get().contains("EINVAL"), failed.summaryProperty().get());
            var diagnosis = failed.resultProperty().get().diagnosis().orElseThrow();
            assertEquals("query-port", diagnosis.stepId());
            assertEquals("gid_idx", diagnosis.parameter());
            assertEquals("3", diagnosis.fix().orElseThrow().value(), diagnosis.toString());
            assertEquals(QpState.INIT, client.localStateProperty().get(), "a refused modify leaves the QP as it was");
            lab.useRecommendedGidAndReplay();
            return null;
        });
        loopback.await("the replay", () -> loopback.idle() && loopback.side("client").nextIndexProperty().get() > 9);
        loopback.onUi(() -> {
            assertEquals(-1, loopback.side("client").failedIndex());
            assertEquals(QpState.RTR, loopback.side("client").localStateProperty().get());
            lab.runAllToEnd();
            return null;
        });
        loopback.await("the end", () -> loopback.idle() && loopback.side("server").nextIndexProperty().get() == loopback.side("server").steps().size());
        loopback.onUi(() -> {
            SideViewModel server = loopback.side("server");
            assertEquals("\"HelloWorld\"", server.steps().get(server.steps().size() - 1).summaryProperty().get());
            return null;
        });
    }

    /**
     * The one-click GID fix on a busy machine: the server's worker gets as far as it can before the
     * client's worker starts its part of the fix. Each side's reset forgets what its peer had sent
     * it, so a server that ran on to the exchange before the client reset would have its
     * connection data dropped and the client would wait for it in vain.
     */
    @Test
    void theGidFixRunsNoSideOnBeforeEverySideHasReset() {
        java.util.Map<String, HeldWorker> workers = new java.util.concurrent.ConcurrentHashMap<>();
        LabViewModel held = loopback.onUi(() -> new LabViewModel(Backends.installed(),
                DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort()), Runnable::run, loopback.ui(),
                name -> workers.computeIfAbsent(name, HeldWorker::new)));
        try {
            loopback.await("the GID table", () -> !held.setup().gids().isEmpty());
            LabSetup seed = held.defaultSetup();
            // A peer that never comes is given up after 5 s instead of the window's 60.
            LabSetup setup = new LabSetup(seed.mode(), seed.device(), seed.ibPort(), seed.gidIndex(), seed.flow(),
                    seed.protocol(), seed.role(), seed.localIp(), seed.peerIp(), seed.tcpPort(),
                    seed.pollTimeoutMillis(), java.time.Duration.ofSeconds(5), seed.base());
            loopback.run(() -> {
                held.apply(setup);
                held.runAllToEnd();
            });
            loopback.await("RTR to fail", () -> held.sides().stream().allMatch(side -> !side.busyProperty().get()
                    && side.failedIndex() >= 0));
            java.util.concurrent.atomic.AtomicBoolean serverSent = new java.util.concurrent.atomic.AtomicBoolean();
            loopback.run(() -> {
                side(held, "server").session().addListener(event -> {
                    if (event instanceof org.rdmalab.lab.LabEvent.ControlMessage message && message.sent()) {
                        serverSent.set(true);
                    }
                });
                HeldWorker server = workers.get("server");
                workers.get("client").holdNextUntil(() -> serverSent.get() || server.unfinished.get() == 0);
                held.useRecommendedGidAndReplay();
            });
            loopback.await("the replay", () -> held.sides().stream().noneMatch(side -> side.busyProperty().get())
                    && (side(held, "client").failedIndex() >= 0 || side(held, "client").nextIndexProperty().get() > 9));
            loopback.run(() -> {
                SideViewModel client = side(held, "client");
                int failed = client.failedIndex();
                assertEquals(-1, failed, () -> "the client failed at " + client.steps().get(failed).step().id() + ": "
                        + client.steps().get(failed).summaryProperty().get());
                assertEquals(QpState.RTR, client.localStateProperty().get());
                assertEquals(QpState.RTR, side(held, "server").localStateProperty().get());
            });
        } finally {
            loopback.run(held::close);
        }
    }

    private static SideViewModel side(LabViewModel lab, String name) {
        return lab.sides().stream().filter(side -> side.name().equals(name)).findFirst().orElseThrow();
    }

    /**
     * A side's worker thread whose next command can be held back until a condition holds (at most
     * 10 s), as a busy machine may leave one thread waiting for its core while another runs on.
     */
    private static final class HeldWorker extends java.util.concurrent.ThreadPoolExecutor {

        /** Commands handed to it and not yet finished. */
        final java.util.concurrent.atomic.AtomicInteger unfinished = new java.util.concurrent.atomic.AtomicInteger();
        private volatile java.util.function.BooleanSupplier hold;

        HeldWorker(String name) {
            super(1, 1, 0, TimeUnit.MILLISECONDS, new java.util.concurrent.LinkedBlockingQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "rdma-lab " + name);
                thread.setDaemon(true);
                return thread;
            });
        }

        void holdNextUntil(java.util.function.BooleanSupplier condition) {
            hold = condition;
        }

        @Override
        public void execute(Runnable command) {
            unfinished.incrementAndGet();
            super.execute(command);
        }

        @Override
        protected void beforeExecute(Thread thread, Runnable command) {
            java.util.function.BooleanSupplier condition = hold;
            hold = null;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (condition != null && !condition.getAsBoolean() && System.nanoTime() < end) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    thread.interrupt();
                    return;
                }
            }
        }

        @Override
        protected void afterExecute(Runnable command, Throwable failure) {
            unfinished.decrementAndGet();
        }
    }

    @Test
    void theTrafficFormReadsSixtyFourBitOperandsAndSaysWhichFieldIsWrong() {
        TrafficViewModel traffic = loopback.onUi(() -> new TrafficViewModel(lab, loopback.ui()));
        loopback.onUi(() -> {
            traffic.opcodeProperty().set(org.rdmalab.verbs.WrOpcode.ATOMIC_CMP_AND_SWP);
            traffic.compareAddProperty().set("0x100000000");
            traffic.swapProperty().set("-1");
            traffic.wrIdProperty().set("0xffffffffff");
            org.rdmalab.lab.TrafficRequest request = traffic.request();
            assertEquals(1L << 32, request.compareAdd());
            assertEquals(-1L, request.swap());
            assertEquals(0xffffffffffL, request.wrId());
            assertEquals(8, request.length(), "an atomic is 8 bytes whatever the length field says");
            traffic.immProperty().set("0xffffffff");
            traffic.opcodeProperty().set(org.rdmalab.verbs.WrOpcode.SEND_WITH_IMM);
            assertEquals(-1, traffic.request().imm(), "imm_data is 32 bits, 0xffffffff included");
            traffic.localOffsetProperty().set("ten");
            IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class, traffic::request);
            assertEquals("local offset: 'ten' is not a number (write 12 or 0x0c)", refused.getMessage());
            return null;
        });
    }

    @Test
    void asTheServerOfTwoMachinesTheWindowServesADemoClient() throws Exception {
        int tcpPort = Ports.freeTcpPort();
        DeviceOptions base = DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort());
        loopback.onUi(() -> {
            lab.apply(lab.defaultSetup().withBase(base).withGidIndex("auto").twoMachines(org.rdmalab.lab.Role.SERVER,
                    "127.0.0.1", "127.0.0.2", org.rdmalab.control.ControlProtocol.LAB, tcpPort));
            lab.runAllToEnd();
            return null;
        });
        java.io.StringWriter clientOut = new java.io.StringWriter();
        picocli.CommandLine demo = org.rdmalab.cli.Main.commandLine();
        demo.setOut(new java.io.PrintWriter(clientOut, true));
        demo.setErr(new java.io.PrintWriter(clientOut, true));
        CompletableFuture<Integer> client = CompletableFuture.supplyAsync(
                () -> demo.execute("demo", "127.0.0.2", "soft0", "127.0.0.1", "--protocol", "lab", "--flow", "write-only",
                        "--tcp-port", Integer.toString(tcpPort), "--udp-port", Integer.toString(base.udpPort())));
        SideViewModel local = loopback.onUi(() -> loopback.side("local"));
        loopback.await("the server to finish", () -> loopback.idle() && local.nextIndexProperty().get() == local.steps().size());
        loopback.onUi(() -> {
            assertEquals("\"HelloWorld\"", local.steps().get(local.steps().size() - 1).summaryProperty().get());
            assertEquals(QpState.RTS, local.peerStateProperty().get(), "the client's QP state arrived over the lab protocol");
            // The demo client answers buffer requests until this side says bye, which a reset does.
            lab.resetAll();
            return null;
        });
        assertEquals(0, client.get(60, TimeUnit.SECONDS), clientOut.toString());
    }

    @Test
    void resettingAHundredTimesLeaksNoThread() {
        loopback.run(() -> lab.apply(lab.defaultSetup().withGidIndex("3")));
        SideViewModel server = loopback.onUi(() -> loopback.side("server"));
        SideViewModel client = loopback.onUi(() -> loopback.side("client"));
        // Warm up once so the software devices' threads exist before counting.
        loopback.onUi(() -> {
            server.runTo(9);
            client.runTo(9);
            return null;
        });
        loopback.await("RTR", () -> loopback.idle() && client.nextIndexProperty().get() == 10);
        loopback.run(() -> lab.resetAll());
        loopback.await("the reset", loopback::idle);
        int before = Thread.activeCount();
        for (int round = 0; round < 100; round++) {
            loopback.onUi(() -> {
                server.runTo(6);
                client.runTo(6);
                return null;
            });
            loopback.await("steps", () -> loopback.idle() && client.nextIndexProperty().get() == 7);
            loopback.run(() -> lab.resetAll());
            loopback.await("the reset", () -> loopback.idle() && client.nextIndexProperty().get() == 0);
        }
        loopback.await("threads to end", () -> Thread.activeCount() <= before + 1);
        assertFalse(Thread.activeCount() > before + 1, "threads before " + before + ", after " + Thread.activeCount());
    }
}
