package org.rdmalab.softroce.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The socket option soft0's sockets need: on Linux IP_PMTUDISC_DO, so the kernel sends IPv4 ID 0
 * and DF (the header the ICRC covers); elsewhere the kernel's ID is kept and the reason is said.
 */
class WireSocketTest {

    private static boolean linux() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    }

    @Test
    void onLinuxTheSocketIsSetToPmtudiscDo() throws Exception {
        assumeTrue(linux(), "IP_PMTUDISC_DO is Linux's");
        try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET)) {
            channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            WireSocket.Setup setup = WireSocket.configure(channel);
            assertTrue(setup.fixedId(), String.valueOf(setup.problem()));
            String defaultTtl = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_default_ttl")).get(0).trim();
            assertEquals(Integer.parseInt(defaultTtl), setup.ttl());
        }
        assertTrue(WireSocket.probe().fixedId());
    }

    @Test
    void anUnboundChannelIsReportedNotGuessed() throws Exception {
        assumeTrue(linux(), "IP_PMTUDISC_DO is Linux's");
        try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET)) {
            WireSocket.Setup setup = WireSocket.configure(channel);
            // Java 17 has no IP_DONTFRAGMENT to fall back on; JDK 19+ would set it on any channel.
            if (Runtime.version().feature() < 19) {
                assertEquals(false, setup.fixedId());
                assertTrue(setup.problem().contains("not bound"), setup.problem());
            }
        }
    }

    @Test
    void elsewhereThanLinuxTheSocketKeepsTheKernelsIdAndSaysWhy() throws Exception {
        // Java 17 has no IP_DONTFRAGMENT to fall back on; JDK 19+ sets it wherever the OS has it.
        assumeTrue(Runtime.version().feature() < 19, "JDK 19+ sets IP_DONTFRAGMENT instead");
        try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET)) {
            channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            WireSocket.Setup setup = WireSocket.configure(channel, "Mac OS X");
            assertEquals(false, setup.fixedId());
            assertEquals("IP_PMTUDISC_DO (IPv4 ID 0 on every datagram) is a Linux socket option, and this is Mac OS X",
                    setup.problem());
            assertEquals(WireSocket.DEFAULT_TTL, setup.ttl());
        }
    }
}
