package org.rdmalab.control.seed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.ControlListener;
import org.rdmalab.control.Timeouts;
import org.rdmalab.testing.Await;
import org.rdmalab.testing.Tools;
import org.rdmalab.verbs.Gid;

/**
 * The Java side against a C peer that declares the block as the seed does ({@code src/test/c/seed_peer.c},
 * compiled here with gcc): both directions, every field compared, then the sync rounds.
 */
@Timeout(60)
class SeedInteropTest {

    private static final Duration PROCESS_LIMIT = Duration.ofSeconds(20);
    private static final Timeouts QUICK = Timeouts.all(Duration.ofSeconds(10));
    private static final Pattern RECEIVED = Pattern.compile(
            "received addr=0x([0-9a-f]{16}) rkey=0x([0-9a-f]{8}) qp_num=0x([0-9a-f]{8}) lid=0x([0-9a-f]{4}) gid=([0-9a-f]{32})");

    /** What the C side sends: every byte distinct, high bits set, so an endianness slip shows. */
    private static final SeedBlock C_BLOCK = new SeedBlock(0x8877665544332211L, 0xa1b2c3d4, 0x00abcdef, 0xbeef,
            Gid.parse("fe80::21e:67ff:fe9c:1a2b"));
    /** What the Java side sends: the example of control-protocols.md. */
    private static final SeedBlock JAVA_BLOCK = new SeedBlock(0x00007f1234567890L, 0x1234, 0x11, 0,
            Gid.parse("::ffff:192.168.1.100"));

    @TempDir
    static Path work;

    private static Path peer;

    @BeforeAll
    static void compile() throws Exception {
        Path gcc = Tools.require("gcc", "gcc");
        peer = work.resolve("seed_peer");
        Process process = new ProcessBuilder(gcc.toString(), "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O",
                "-o", peer.toString(), Path.of("src", "test", "c", "seed_peer.c").toString())
                .redirectErrorStream(true).redirectOutput(work.resolve("gcc.log").toFile()).start();
        Result result = finish(process, work.resolve("gcc.log"));
        assertEquals(0, result.exit, "gcc failed: " + result.output);
    }

    private record Result(int exit, String output) {
    }

    private static Result finish(Process process, Path output) throws Exception {
        try {
            if (!process.waitFor(PROCESS_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                fail("the C process did not finish within " + PROCESS_LIMIT.toSeconds() + " s: " + read(output));
            }
            return new Result(process.exitValue(), read(output));
        } finally {
            process.destroyForcibly();
        }
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }

    private static Process startPeer(String role, int port, int syncRounds, Path output) throws IOException {
        List<String> command = new ArrayList<>(List.of(peer.toString(), role, "127.0.0.1", Integer.toString(port),
                "0x" + Long.toHexString(C_BLOCK.addr()), "0x" + Integer.toHexString(C_BLOCK.rkey()),
                "0x" + Integer.toHexString(C_BLOCK.qpNum()), "0x" + Integer.toHexString(C_BLOCK.lid()),
                C_BLOCK.gid().toHex(), Integer.toString(syncRounds)));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    }

    /** Waits for the C server's "listening N" line. */
    private static int awaitListening(Process process, Path output) throws Exception {
        Pattern listening = Pattern.compile("listening (\\d+)");
        try {
            Await.until("the C server to listen", PROCESS_LIMIT, () -> {
                try {
                    return !process.isAlive() || listening.matcher(read(output)).find();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (AssertionError timedOut) {
            process.destroyForcibly();
            fail("the C server did not listen within " + PROCESS_LIMIT.toSeconds() + " s");
        }
        Matcher matcher = listening.matcher(read(output));
        if (!matcher.find()) {
            fail("the C server exited early: " + read(output));
        }
        return Integer.parseInt(matcher.group(1));
    }

    /** Checks what the C side printed against the block the Java side sent. */
    private static void assertCReceivedJavaBlock(String output) {
        Matcher matcher = RECEIVED.matcher(output);
        assertTrue(matcher.find(), "no 'received' line in: " + output);
        assertEquals(JAVA_BLOCK.addr(), Long.parseUnsignedLong(matcher.group(1), 16), "addr");
        assertEquals(JAVA_BLOCK.rkey(), Integer.parseUnsignedInt(matcher.group(2), 16), "rkey");
        assertEquals(JAVA_BLOCK.qpNum(), Integer.parseUnsignedInt(matcher.group(3), 16), "qp_num");
        assertEquals(JAVA_BLOCK.lid(), Integer.parseInt(matcher.group(4), 16), "lid");
        assertEquals(JAVA_BLOCK.gid().toHex(), matcher.group(5), "gid");
    }

    private static void runJavaSide(ControlChannel channel) throws ControlException {
        SeedExchange exchange = new SeedExchange(channel);
        assertEquals(C_BLOCK, exchange.exchange(JAVA_BLOCK));
        assertEquals('Q', exchange.sync(SeedExchange.SYNC_READY));
        assertEquals('R', exchange.sync(SeedExchange.SYNC_RECEIVED));
        assertEquals(Optional.of((byte) 'W'), exchange.finalSync(SeedExchange.SYNC_WRITTEN));
    }

    /** The C peer exited 0, printed the Java side's block field by field and saw the syncs Q, R, W. */
    private void assertCPeerAgreedInThreeRounds(Process process, Path output) throws Exception {
        Result result = finish(process, output);
        assertEquals(0, result.exit, result.output);
        assertCReceivedJavaBlock(result.output);
        assertTrue(result.output.contains("syncs=QRW"), result.output);
    }

    @Test
    void javaClientAgainstCServer() throws Exception {
        Path output = work.resolve("c-server.out");
        Process process = startPeer("server", 0, 3, output);
        try {
            int port = awaitListening(process, output);
            try (ControlChannel channel = ControlChannel.connect("127.0.0.1", port, QUICK)) {
                runJavaSide(channel);
            }
            assertCPeerAgreedInThreeRounds(process, output);
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void javaServerAgainstCClient() throws Exception {
        Path output = work.resolve("c-client.out");
        try (ControlListener listener = ControlListener.bind("127.0.0.1", 0)) {
            Process process = startPeer("client", listener.port(), 3, output);
            try {
                try (ControlChannel channel = listener.acceptOne(QUICK)) {
                    runJavaSide(channel);
                }
                assertCPeerAgreedInThreeRounds(process, output);
            } finally {
                process.destroyForcibly();
            }
        }
    }

    @Test
    void aCPeerWithTwoSyncRoundsIsAcceptedToo() throws Exception {
        Path output = work.resolve("c-two-rounds.out");
        Process process = startPeer("server", 0, 2, output);
        try {
            int port = awaitListening(process, output);
            try (ControlChannel channel = ControlChannel.connect("127.0.0.1", port, QUICK)) {
                SeedExchange exchange = new SeedExchange(channel);
                assertEquals(C_BLOCK, exchange.exchange(JAVA_BLOCK));
                assertEquals('Q', exchange.sync(SeedExchange.SYNC_READY));
                assertEquals('W', exchange.sync(SeedExchange.SYNC_RECEIVED));
                assertEquals(Optional.empty(), exchange.finalSync(SeedExchange.SYNC_WRITTEN));
            }
            Result result = finish(process, output);
            assertEquals(0, result.exit, result.output);
            assertTrue(result.output.contains("syncs=QR"), result.output);
        } finally {
            process.destroyForcibly();
        }
    }
}
