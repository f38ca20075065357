package org.rdmalab.softroce.net;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import jnr.ffi.LibraryLoader;

/**
 * Makes the software device's UDP socket send the IPv4 header its ICRC is computed over.
 *
 * <p>The RoCE v2 ICRC covers the IPv4 identification field, which the kernel fills in for a UDP
 * socket. Linux writes identification 0 (and sets DF) on every datagram of a socket whose
 * {@code IP_MTU_DISCOVER} is {@code IP_PMTUDISC_DO} (ip(7)); with Java's default,
 * {@code IP_PMTUDISC_WANT}, it writes a changing counter. This class sets {@code IP_PMTUDISC_DO},
 * so that the header on the wire is the canonical one ({@code Ipv4Header#canonical}) and kernel
 * rxe, tcpdump and Wireshark find the ICRC right. It also reads {@code IP_TTL}, the TTL the kernel
 * writes, so that captures show it, and sets {@code SO_NO_CHECK} so that the UDP checksum is 0 as
 * rxe sends it and as the device's own capture writes it (best effort: without it only the
 * checksum differs, and RoCE receivers ignore it).
 *
 * <p>Java 17 has no socket option for this ({@code jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT}
 * arrived in JDK 19) and no public way to a channel's file descriptor, so on Linux the descriptor
 * is found among the process's descriptors in {@code /proc/self/fd} by its bound address
 * ({@code getsockname}), and set with {@code setsockopt} through jnr-ffi. Where the JDK offers
 * {@code IP_DONTFRAGMENT}, that is used when the native route is not available. Where neither
 * works (another OS, no libc), the socket keeps the kernel's counter and {@link Setup#problem}
 * says why; soft0 then still talks to soft0, but not to kernel rxe.
 *
 * <p>Thread-safe; {@link #probe} is computed once.
 */
public final class WireSocket {

    // Linux values (include/uapi/linux/in.h, asm-generic/socket.h).
    private static final int SOL_SOCKET = 1;
    private static final int SO_TYPE = 3;
    private static final int SO_NO_CHECK = 11;
    private static final int SOCK_DGRAM = 2;
    private static final int SOL_IP = 0;
    private static final int IP_TTL = 2;
    private static final int IP_MTU_DISCOVER = 10;
    private static final int IP_PMTUDISC_DO = 2;
    private static final int AF_INET = 2;
    /** The TTL Linux writes when IP_TTL was never set and cannot be read (net.ipv4.ip_default_ttl). */
    static final int DEFAULT_TTL = 64;

    /** How a socket was set up: whether every datagram leaves with ID 0 and DF, and with which TTL. */
    public record Setup(boolean fixedId, int ttl, boolean zeroUdpChecksum, String problem) {

        public static Setup failed(String problem) {
            return new Setup(false, DEFAULT_TTL, false, problem);
        }
    }

    private static volatile SocketCalls calls;
    private static volatile String callsProblem;
    private static volatile Setup probed;

    private WireSocket() {
    }

    /**
     * Whether a socket of this process can be made to send ID 0: configures a throwaway socket on
     * 127.0.0.1 once and remembers the result.
     */
    public static Setup probe() {
        Setup result = probed;
        if (result == null) {
            try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET)) {
                channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                result = configure(channel);
            } catch (IOException e) {
                result = Setup.failed("cannot open a UDP socket to try IP_MTU_DISCOVER: " + e.getMessage());
            }
            probed = result;
        }
        return result;
    }

    /** Sets IP_PMTUDISC_DO on a bound IPv4 channel. Never throws: a failure is in the result. */
    static Setup configure(DatagramChannel channel) {
        return configure(channel, System.getProperty("os.name", ""));
    }

    /** {@link #configure(DatagramChannel)} as it goes on the operating system named {@code osName}. */
    static Setup configure(DatagramChannel channel, String osName) {
        String nativeProblem;
        if (!osName.toLowerCase(Locale.ROOT).contains("linux")) {
            nativeProblem = "IP_PMTUDISC_DO (IPv4 ID 0 on every datagram) is a Linux socket option, and this is "
                    + osName;
        } else {
            try {
                return configureNative(channel);
            } catch (IOException | RuntimeException | LinkageError e) {
                nativeProblem = e.getMessage();
            }
        }
        Setup jdk = configureJdk(channel);
        return jdk != null ? jdk : Setup.failed(nativeProblem);
    }

    private static Setup configureNative(DatagramChannel channel) throws IOException {
        SocketCalls c = calls();
        InetSocketAddress local = (InetSocketAddress) channel.getLocalAddress();
        if (local == null || !(local.getAddress() instanceof Inet4Address)) {
            throw new IOException("the socket is not bound to an IPv4 address");
        }
        int fd = descriptorOf(c, local);
        if (c.setsockopt(fd, SOL_IP, IP_MTU_DISCOVER, new int[] {IP_PMTUDISC_DO}, 4) != 0) {
            throw new IOException("setsockopt(IP_MTU_DISCOVER, IP_PMTUDISC_DO) failed with errno "
                    + jnr.ffi.Runtime.getSystemRuntime().getLastError());
        }
        int[] value = new int[1];
        int[] length = {4};
        if (c.getsockopt(fd, SOL_IP, IP_MTU_DISCOVER, value, length) != 0 || value[0] != IP_PMTUDISC_DO) {
            throw new IOException("IP_MTU_DISCOVER reads back as " + value[0] + ", not IP_PMTUDISC_DO");
        }
        length[0] = 4;
        int ttl = c.getsockopt(fd, SOL_IP, IP_TTL, value, length) == 0 && value[0] > 0 && value[0] < 256
                ? value[0] : DEFAULT_TTL;
        boolean noChecksum = c.setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, new int[] {1}, 4) == 0;
        return new Setup(true, ttl, noChecksum, null);
    }

    /**
     * The one UDP socket descriptor of this process bound to {@code local}. Two sockets cannot be
     * bound to one address and port without SO_REUSEADDR / SO_REUSEPORT, which the device never sets.
     */
    private static int descriptorOf(SocketCalls c, InetSocketAddress local) throws IOException {
        byte[] want = local.getAddress().getAddress();
        List<Integer> found = new ArrayList<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path entry : fds) {
                int fd;
                try {
                    fd = Integer.parseInt(entry.getFileName().toString());
                } catch (NumberFormatException e) {
                    continue;
                }
                byte[] address = new byte[16];
                int[] length = {16};
                if (c.getsockname(fd, address, length) != 0 || length[0] < 8) {
                    continue;
                }
                int family = (address[0] & 0xFF) | (address[1] & 0xFF) << 8; // host byte order: 2 or 0x200
                int port = (address[2] & 0xFF) << 8 | (address[3] & 0xFF);
                if ((family != AF_INET && family != AF_INET << 8) || port != local.getPort()
                        || address[4] != want[0] || address[5] != want[1] || address[6] != want[2] || address[7] != want[3]) {
                    continue;
                }
                int[] type = new int[1];
                int[] typeLength = {4};
                if (c.getsockopt(fd, SOL_SOCKET, SO_TYPE, type, typeLength) == 0 && type[0] == SOCK_DGRAM) {
                    found.add(fd);
                }
            }
        }
        if (found.size() != 1) {
            throw new IOException("found " + found.size() + " UDP sockets bound to " + local.getAddress().getHostAddress()
                    + ":" + local.getPort() + " in /proc/self/fd, expected exactly one");
        }
        return found.get(0);
    }

    /** JDK 19 and later: {@code ExtendedSocketOptions.IP_DONTFRAGMENT}; null where it is missing or fails. */
    @SuppressWarnings("unchecked")
    private static Setup configureJdk(DatagramChannel channel) {
        try {
            Field field = Class.forName("jdk.net.ExtendedSocketOptions").getField("IP_DONTFRAGMENT");
            SocketOption<Boolean> option = (SocketOption<Boolean>) field.get(null);
            if (!channel.supportedOptions().contains(option)) {
                return null;
            }
            channel.setOption(option, Boolean.TRUE);
            return new Setup(true, DEFAULT_TTL, false, null);
        } catch (ReflectiveOperationException | IOException | RuntimeException e) {
            return null;
        }
    }

    private static SocketCalls calls() throws IOException {
        SocketCalls loaded = calls;
        if (loaded != null) {
            return loaded;
        }
        synchronized (WireSocket.class) {
            if (calls == null && callsProblem == null) {
                try {
                    calls = LibraryLoader.create(SocketCalls.class).failImmediately().load("c");
                } catch (RuntimeException | LinkageError e) {
                    callsProblem = "cannot load libc through jnr-ffi to set IP_MTU_DISCOVER: " + e.getMessage();
                }
            }
            if (calls == null) {
                throw new IOException(callsProblem);
            }
            return calls;
        }
    }
}
