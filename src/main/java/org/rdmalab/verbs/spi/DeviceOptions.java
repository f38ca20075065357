package org.rdmalab.verbs.spi;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How to configure the devices a backend lists. Only software devices use these today: they
 * bind a UDP socket to {@code address:udpPort}, derive their GID table from the address, inject
 * faults and write captures.
 *
 * @param address the IPv4 address a software device binds (default 127.0.0.1)
 * @param udpPort the RoCEv2 UDP port (4791; tests use others)
 * @param faults a fault spec such as {@code drop=0.05,dup=0.01,seed=7}, or empty for none
 * @param capture a pcap file every packet is written to, or null; devices given the same file share it
 * @param linkMtu the MTU of the network link under a software device (1500 for Ethernet, 9000 for
 *     jumbo frames); like rxe, the device derives its active MTU from it
 * @param peerUdpPort the UDP port a software device sends to, or 0 for its own {@code udpPort}, as
 *     on a RoCE v2 network, where every device listens on 4791 and sends there: another port
 *     lets two devices share one address (the ping-pong's warm-up twins)
 */
public record DeviceOptions(Inet4Address address, int udpPort, String faults, Path capture, int linkMtu,
                            int peerUdpPort) {

    /** Ethernet's MTU, the default link under a software device. */
    public static final int ETHERNET_MTU = 1500;

    /** The RoCEv2 UDP destination port assigned by IANA. */
    public static final int ROCE_V2_PORT = 4791;

    public DeviceOptions {
        Objects.requireNonNull(address, "address");
        faults = faults == null ? "" : faults.trim();
        if (linkMtu < 576 || linkMtu > 65536) {
            throw new IllegalArgumentException("link MTU " + linkMtu + " is outside 576..65536");
        }
        if (udpPort < 0 || udpPort > 65535) {
            throw new IllegalArgumentException("UDP port " + udpPort + " is outside 0..65535");
        }
        if (peerUdpPort < 0 || peerUdpPort > 65535) {
            throw new IllegalArgumentException("peer UDP port " + peerUdpPort + " is outside 0..65535");
        }
    }

    /** Options whose devices send to their own UDP port, as RoCE v2 devices do. */
    public DeviceOptions(Inet4Address address, int udpPort, String faults, Path capture, int linkMtu) {
        this(address, udpPort, faults, capture, linkMtu, 0);
    }

    /** The UDP port a software device sends its packets to: {@link #peerUdpPort}, or its own port when that is 0. */
    public int destinationUdpPort() {
        return peerUdpPort == 0 ? udpPort : peerUdpPort;
    }

    /** 127.0.0.1, UDP 4791. */
    public static DeviceOptions defaults() {
        return new DeviceOptions(loopback(), ROCE_V2_PORT, "", null, ETHERNET_MTU);
    }

    /** The given address, UDP 4791. */
    public static DeviceOptions at(Inet4Address address) {
        return new DeviceOptions(address, ROCE_V2_PORT, "", null, ETHERNET_MTU);
    }

    /** The same options bound to another address. */
    public DeviceOptions withAddress(Inet4Address newAddress) {
        return new DeviceOptions(newAddress, udpPort, faults, capture, linkMtu, peerUdpPort);
    }

    /** The same options on another UDP port. */
    public DeviceOptions withUdpPort(int newPort) {
        return new DeviceOptions(address, newPort, faults, capture, linkMtu, peerUdpPort);
    }

    /** The same options with another fault spec. */
    public DeviceOptions withFaults(String spec) {
        return new DeviceOptions(address, udpPort, spec, capture, linkMtu, peerUdpPort);
    }

    /** The same options writing a capture to {@code file} (null for none). */
    public DeviceOptions withCapture(Path file) {
        return new DeviceOptions(address, udpPort, faults, file, linkMtu, peerUdpPort);
    }

    /**
     * The same options sending to another UDP port than the device's own (0: its own), so that two
     * devices can share one address. Not for a device that talks to a real RoCE v2 peer.
     */
    public DeviceOptions withPeerUdpPort(int port) {
        return new DeviceOptions(address, udpPort, faults, capture, linkMtu, port);
    }

    /** The same options over a link with another MTU (9000 for jumbo frames). */
    public DeviceOptions withLinkMtu(int mtu) {
        return new DeviceOptions(address, udpPort, faults, capture, mtu, peerUdpPort);
    }

    /**
     * Parses a dotted-quad IPv4 address without any name lookup.
     *
     * @throws IllegalArgumentException saying what a valid address looks like
     */
    public static Inet4Address parseAddress(String text) {
        String trimmed = text.trim();
        if (!trimmed.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            throw new IllegalArgumentException("'" + text + "' is not an IPv4 address (write it like 192.168.1.100)");
        }
        byte[] bytes = new byte[4];
        String[] parts = trimmed.split("\\.");
        for (int i = 0; i < 4; i++) {
            int part = Integer.parseInt(parts[i]);
            if (part > 255) {
                throw new IllegalArgumentException("'" + text + "' is not an IPv4 address (each part is 0..255)");
            }
            bytes[i] = (byte) part;
        }
        try {
            return (Inet4Address) InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static Inet4Address loopback() {
        return parseAddress("127.0.0.1");
    }
}
