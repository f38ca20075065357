package org.rdmalab.softroce.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.channels.NetworkChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import jnr.ffi.LibraryLoader;
import org.junit.jupiter.api.Test;

/**
 * The socket option soft0's sockets need: on Linux IP_PMTUDISC_DO, so the kernel sends IPv4 ID 0
 * and DF (the header the ICRC covers); elsewhere the kernel's ID is kept and the reason is said.
 * The option lands on the device's socket and on no other socket of the process, however alike
 * (read back through libc, as the kernel holds it); the TTL reported is the socket's; the UDP
 * checksum is turned off.
 */
class WireSocketTest {

    // Linux values (include/uapi/linux/in.h, asm-generic/socket.h).
    private static final int SOL_SOCKET = 1;
    private static final int SO_NO_CHECK = 11;
    private static final int SOL_IP = 0;
    private static final int IP_TTL = 2;
    private static final int IP_MTU_DISCOVER = 10;
    private static final int IP_PMTUDISC_DO = 2;

    private static SocketCalls libc() {
        return LibraryLoader.create(SocketCalls.class).failImmediately().load("c");
    }

    /** This process's open descriptors, each with its socket's name (empty when it is not a socket). */
    private static Map<Integer, String> descriptors(SocketCalls libc) throws IOException {
        Map<Integer, String> names = new HashMap<>();
        try (Stream<Path> entries = Files.list(Path.of("/proc/self/fd"))) {
            entries.forEach(entry -> {
                int fd = Integer.parseInt(entry.getFileName().toString());
                byte[] name = new byte[28];
                int[] length = {28};
                names.put(fd, libc.getsockname(fd, name, length) == 0 ? Arrays.toString(Arrays.copyOf(name, length[0])) : "");
            });
        }
        return names;
    }

    /** A channel opened and bound by {@code open}, with its descriptor. */
    private record Opened<C extends NetworkChannel>(C channel, int fd) {
    }

    private interface Opener<C extends NetworkChannel> {
        C open() throws IOException;
    }

    /**
     * Opens a channel and finds its descriptor: the one that was not there, or was not this socket,
     * before, and whose socket name now has the channel's port.
     */
    private static <C extends NetworkChannel> Opened<C> opened(SocketCalls libc, Opener<C> opener) throws IOException {
        Map<Integer, String> before = descriptors(libc);
        C channel = opener.open();
        int port = ((InetSocketAddress) channel.getLocalAddress()).getPort();
        List<Integer> mine = new ArrayList<>();
        for (Map.Entry<Integer, String> now : descriptors(libc).entrySet()) {
            int fd = now.getKey();
            byte[] name = new byte[28];
            int[] length = {28};
            if (!now.getValue().equals(before.get(fd)) && libc.getsockname(fd, name, length) == 0
                    && ((name[2] & 0xff) << 8 | (name[3] & 0xff)) == port) {
                mine.add(fd);
            }
        }
        assertEquals(1, mine.size(), "the new descriptor of " + channel.getLocalAddress());
        return new Opened<>(channel, mine.get(0));
    }

    private static Opened<DatagramChannel> udp(SocketCalls libc, String address, int port) throws IOException {
        return opened(libc, () -> {
            DatagramChannel channel = DatagramChannel.open(address.contains(":") ? StandardProtocolFamily.INET6
                    : StandardProtocolFamily.INET);
            channel.bind(new InetSocketAddress(InetAddress.getByName(address), port));
            return channel;
        });
    }

    private static int option(SocketCalls libc, int fd, int level, int name) {
        int[] value = new int[1];
        int[] length = {4};
        assertEquals(0, libc.getsockopt(fd, level, name, value, length), "getsockopt on " + fd);
        return value[0];
    }

    private static void closeAll(List<? extends Opened<?>> all) throws IOException {
        for (Opened<?> one : all) {
            one.channel().close();
        }
    }

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

    /**
     * Sockets that share the device socket's port at another address, its address at another
     * port, or its address and port over TCP keep the kernel's default; only the device's socket
     * is set to IP_PMTUDISC_DO and SO_NO_CHECK.
     */
    @Test
    void onlyTheSocketBoundToTheAddressIsSet() throws Exception {
        assumeTrue(linux(), "IP_PMTUDISC_DO is Linux's");
        SocketCalls libc = libc();
        List<Opened<?>> all = new ArrayList<>();
        try {
            Opened<DatagramChannel> device = udp(libc, "127.0.0.1", 0);
            all.add(device);
            int port = ((InetSocketAddress) device.channel().getLocalAddress()).getPort();
            all.add(udp(libc, "127.0.0.2", port));
            all.add(udp(libc, "127.0.1.1", port));
            all.add(udp(libc, "127.1.0.1", port));
            all.add(udp(libc, "127.0.0.1", 0));
            all.add(opened(libc, () -> ServerSocketChannel.open(StandardProtocolFamily.INET)
                    .bind(new InetSocketAddress("127.0.0.1", port))));
            WireSocket.Setup setup = WireSocket.configure(device.channel());
            assertTrue(setup.fixedId(), String.valueOf(setup.problem()));
            assertTrue(setup.zeroUdpChecksum());
            assertEquals(null, setup.problem());
            assertEquals(IP_PMTUDISC_DO, option(libc, device.fd(), SOL_IP, IP_MTU_DISCOVER));
            assertEquals(1, option(libc, device.fd(), SOL_SOCKET, SO_NO_CHECK));
            for (Opened<?> other : all.subList(1, all.size())) {
                String which = other.channel().getLocalAddress() + " " + other.channel().getClass().getSimpleName();
                assertTrue(option(libc, other.fd(), SOL_IP, IP_MTU_DISCOVER) != IP_PMTUDISC_DO, which);
                assertEquals(0, option(libc, other.fd(), SOL_SOCKET, SO_NO_CHECK), which);
            }
        } finally {
            closeAll(all);
        }
    }

    /** A device bound to every address (0.0.0.0) is not mistaken for an IPv6 socket on its port. */
    @Test
    void anIpv6SocketOnTheSamePortIsNotTheDevicesSocket() throws Exception {
        assumeTrue(linux(), "IP_PMTUDISC_DO is Linux's");
        SocketCalls libc = libc();
        List<Opened<?>> all = new ArrayList<>();
        try {
            Opened<DatagramChannel> device = udp(libc, "0.0.0.0", 0);
            all.add(device);
            int port = ((InetSocketAddress) device.channel().getLocalAddress()).getPort();
            Opened<DatagramChannel> ipv6 = udp(libc, "::1", port);
            all.add(ipv6);
            WireSocket.Setup setup = WireSocket.configure(device.channel());
            assertTrue(setup.fixedId(), String.valueOf(setup.problem()));
            assertEquals(IP_PMTUDISC_DO, option(libc, device.fd(), SOL_IP, IP_MTU_DISCOVER));
            assertEquals(0, option(libc, ipv6.fd(), SOL_SOCKET, SO_NO_CHECK));
        } finally {
            closeAll(all);
        }
    }

    /** The TTL reported is the one the socket sends with, at both ends of its range. */
    @Test
    void theTtlIsTheSockets() throws Exception {
        assumeTrue(linux(), "IP_PMTUDISC_DO is Linux's");
        SocketCalls libc = libc();
        for (int ttl : new int[] {1, 255, 37}) {
            Opened<DatagramChannel> device = udp(libc, "127.0.0.1", 0);
            try {
                assertEquals(0, libc.setsockopt(device.fd(), SOL_IP, IP_TTL, new int[] {ttl}, 4));
                WireSocket.Setup setup = WireSocket.configure(device.channel());
                assertEquals(ttl, setup.ttl());
                assertTrue(setup.fixedId());
            } finally {
                device.channel().close();
            }
        }
    }

    /**
     * Two sockets sharing an address (SO_REUSEADDR, which the device never sets) cannot be told
     * apart: neither is set, and the reason is said.
     */
    @Test
    void twoSocketsOnOneAddressAreNotGuessedBetween() throws Exception {
        assumeTrue(linux(), "IP_PMTUDISC_DO is Linux's");
        assumeTrue(Runtime.version().feature() < 19, "JDK 19+ sets IP_DONTFRAGMENT instead");
        SocketCalls libc = libc();
        List<Opened<?>> all = new ArrayList<>();
        try {
            Opened<DatagramChannel> first = opened(libc, () -> DatagramChannel.open(StandardProtocolFamily.INET)
                    .setOption(StandardSocketOptions.SO_REUSEADDR, true).bind(new InetSocketAddress("127.0.0.1", 0)));
            all.add(first);
            int port = ((InetSocketAddress) first.channel().getLocalAddress()).getPort();
            all.add(opened(libc, () -> DatagramChannel.open(StandardProtocolFamily.INET)
                    .setOption(StandardSocketOptions.SO_REUSEADDR, true).bind(new InetSocketAddress("127.0.0.1", port))));
            WireSocket.Setup setup = WireSocket.configure(first.channel());
            assertFalse(setup.fixedId());
            assertFalse(setup.zeroUdpChecksum());
            assertEquals(WireSocket.DEFAULT_TTL, setup.ttl());
            assertEquals("found 2 UDP sockets bound to 127.0.0.1:" + port + " in /proc/self/fd, expected exactly one",
                    setup.problem());
            for (Opened<?> one : all) {
                assertTrue(option(libc, one.fd(), SOL_IP, IP_MTU_DISCOVER) != IP_PMTUDISC_DO);
            }
        } finally {
            closeAll(all);
        }
    }

    @Test
    void anIpv6SocketIsReportedNotSet() throws Exception {
        assumeTrue(linux(), "IP_PMTUDISC_DO is Linux's");
        assumeTrue(Runtime.version().feature() < 19, "JDK 19+ sets IP_DONTFRAGMENT instead");
        try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET6)) {
            channel.bind(new InetSocketAddress(InetAddress.getByName("::1"), 0));
            WireSocket.Setup setup = WireSocket.configure(channel);
            assertFalse(setup.fixedId());
            assertEquals("the socket is not bound to an IPv4 address", setup.problem());
        }
    }

    @Test
    void theProbeIsMadeOnce() {
        assertSame(WireSocket.probe(), WireSocket.probe());
        WireSocket.Setup failed = WireSocket.Setup.failed("why");
        assertEquals(new WireSocket.Setup(false, WireSocket.DEFAULT_TTL, false, "why"), failed);
        assertEquals(64, WireSocket.DEFAULT_TTL, "Linux's net.ipv4.ip_default_ttl");
    }
}
