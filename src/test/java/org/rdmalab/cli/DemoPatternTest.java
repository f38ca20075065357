package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.rdmalab.lab.BufferPattern;
import org.rdmalab.lab.Flows;
import org.rdmalab.testing.Ports;

/**
 * demo --pattern on soft0: server and client in this JVM, each message's sender and receiver print
 * the same CRC32, which is the CRC32 of the text and the message's pattern, under packet loss too.
 */
class DemoPatternTest {

    private static final int SIZE = 64 * 1024;

    private record Run(CliRunner.Result server, CliRunner.Result client) {
    }

    private static Run demo(String protocol, String... extra) throws Exception {
        String tcp = Integer.toString(Ports.freeTcpPort());
        String udp = Integer.toString(Ports.freeUdpPort());
        List<String> common = new ArrayList<>(List.of("--protocol", protocol, "--size", Integer.toString(SIZE),
                "--mtu", "1024", "--pattern", "--tcp-port", tcp, "--udp-port", udp, "--timeout", "30",
                "--poll-timeout", "20000"));
        common.addAll(List.of(extra));
        List<String> server = new ArrayList<>(List.of("demo", "127.0.0.1", "soft0"));
        server.addAll(common);
        List<String> client = new ArrayList<>(List.of("demo", "127.0.0.2", "soft0", "127.0.0.1"));
        client.addAll(common);
        CompletableFuture<CliRunner.Result> serverRun = CompletableFuture.supplyAsync(
                () -> CliRunner.run(server.toArray(String[]::new)));
        CliRunner.Result clientResult = CliRunner.run(client.toArray(String[]::new));
        CliRunner.Result serverResult = serverRun.get(60, TimeUnit.SECONDS);
        assertEquals(0, serverResult.exitCode(), serverResult.out() + serverResult.err());
        assertEquals(0, clientResult.exitCode(), clientResult.out() + clientResult.err());
        return new Run(serverResult, clientResult);
    }

    /** The CRC32 a side printed for {@code what}, failing when it printed none or two. */
    private static long crc(CliRunner.Result side, String what) {
        Matcher m = Pattern.compile("(?m)^crc32 of " + Pattern.quote(what) + ": 0x([0-9a-f]{8}) over (\\d+) bytes$")
                .matcher(side.out());
        assertTrue(m.find(), "no crc32 line for " + what + " in:\n" + side.out());
        assertEquals(SIZE, Integer.parseInt(m.group(2)), "the whole buffer");
        long value = Long.parseLong(m.group(1), 16);
        assertTrue(!m.find(), "one line for " + what);
        return value;
    }

    /** The CRC32 of {@code text}, its NUL and message {@code message}'s pattern after them, computed here. */
    private static long expected(String text, int message) {
        byte[] bytes = new byte[SIZE];
        byte[] ascii = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(ascii, 0, bytes, 0, ascii.length);
        for (int i = ascii.length + 1; i < SIZE; i++) {
            bytes[i] = BufferPattern.at(i, message);
        }
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    @Test
    void eachMessagesSenderAndReceiverPrintTheCrc32OfTheTextAndItsOwnPattern() throws Exception {
        Run run = demo("seed");
        long send = crc(run.server(), Flows.SEND_BUFFER);
        long read = crc(run.server(), Flows.READ_BUFFER);
        long write = crc(run.client(), Flows.WRITE_BUFFER);
        assertEquals(send, crc(run.client(), Flows.SEND_BUFFER), "the SEND landed whole");
        assertEquals(read, crc(run.client(), Flows.READ_BUFFER), "the READ brought back the whole buffer");
        assertEquals(write, crc(run.server(), Flows.WRITE_BUFFER), "the WRITE landed whole");
        assertEquals(expected(Flows.SERVER_SEND_TEXT, BufferPattern.SEND), send);
        assertEquals(expected(Flows.SERVER_SEND_TEXT, BufferPattern.READ), read);
        assertEquals(expected(Flows.MESSAGE, BufferPattern.WRITE), write);
        // Three different buffers: a message that left the receiver's earlier bytes in place would differ.
        assertNotEquals(send, read);
        assertNotEquals(read, write);
        // The seed's own lines are still there.
        assertTrue(run.server().out().contains("Contents of server buffer: 'HelloWorld'"), run.server().out());
        assertTrue(run.client().out().contains("Message is: 'ServerSend'"), run.client().out());
    }

    @Test
    void underPacketLossTheReceiversStillPrintTheSendersCrc32() throws Exception {
        Run run = demo("lab", "--flow", "write-only", "--fault", "drop=0.05,seed=3");
        long write = crc(run.client(), Flows.WRITE_BUFFER);
        assertEquals(expected(Flows.MESSAGE, BufferPattern.WRITE), write);
        assertEquals(write, crc(run.server(), Flows.WRITE_BUFFER));
        assertTrue(!run.client().out().contains(Flows.SEND_BUFFER), "write-only has no SEND");
    }

    @Test
    void patternIsForTheSeedAndLabProtocolsAndIsNotExported() {
        CliRunner.Result pingpong = CliRunner.run("demo", "127.0.0.1", "soft0", "--protocol", "pingpong", "--pattern");
        assertEquals(2, pingpong.exitCode());
        assertEquals("rdma-lab: --pattern is for the seed and lab protocols; leave it out with --protocol pingpong",
                pingpong.err().strip());
        CliRunner.Result export = CliRunner.run("demo", "127.0.0.1", "soft0", "--pattern", "--export-c", "x.c");
        assertEquals(2, export.exitCode());
        assertEquals("rdma-lab: --export-c writes the seed's own flow, without --pattern; leave out one of them",
                export.err().strip());
        assertTrue(!pingpong.out().contains("Open device") && !export.out().contains("Open device"), "nothing ran");
    }
}
