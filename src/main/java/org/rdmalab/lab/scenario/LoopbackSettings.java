package org.rdmalab.lab.scenario;

import java.time.Duration;
import java.util.Objects;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * What a loopback run uses: the device, how each peer's device is configured, and the knobs a
 * student may turn.
 *
 * @param deviceName the device the server opens ({@code soft0})
 * @param server the server device's options (address, UDP port, faults, capture)
 * @param client the client device's options
 * @param pathMtu the QPs' path MTU (the seed uses {@code IBV_MTU_256})
 * @param size bytes a sized scenario moves ({@code bulk}); 0 lets the scenario choose
 * @param pollTimeout how long one completion is polled for before giving up (the seed: 2000 ms)
 * @param clientDeviceName the device the client opens: the server's, or another, such as rxe's on
 *     the other end of a veth pair so that the packets cross an interface
 */
public record LoopbackSettings(String deviceName, DeviceOptions server, DeviceOptions client, Mtu pathMtu,
                               int size, Duration pollTimeout, String clientDeviceName) {

    /** The seed's CQ poll timeout, MAX_POLL_CQ_TIMEOUT. */
    public static final Duration SEED_POLL_TIMEOUT = Duration.ofMillis(2000);
    /** The largest size a scenario moves (64 MiB). */
    public static final int MAX_SIZE = 64 << 20;

    /** Both peers on {@code deviceName}. */
    public LoopbackSettings(String deviceName, DeviceOptions server, DeviceOptions client, Mtu pathMtu, int size,
                            Duration pollTimeout) {
        this(deviceName, server, client, pathMtu, size, pollTimeout, deviceName);
    }

    public LoopbackSettings {
        Objects.requireNonNull(deviceName, "deviceName");
        Objects.requireNonNull(clientDeviceName, "clientDeviceName");
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(pathMtu, "pathMtu");
        Objects.requireNonNull(pollTimeout, "pollTimeout");
        if (size < 0 || size > MAX_SIZE) {
            throw new IllegalArgumentException("size " + size + " is outside 1.." + MAX_SIZE + " bytes");
        }
        if (pollTimeout.isNegative() || pollTimeout.isZero()) {
            throw new IllegalArgumentException("the poll timeout must be positive");
        }
    }

    /** soft0 on 127.0.0.1 (server) and 127.0.0.2 (client), UDP {@code udpPort}, the seed's MTU and timeout. */
    public static LoopbackSettings defaults(int udpPort) {
        DeviceOptions server = DeviceOptions.defaults().withUdpPort(udpPort);
        DeviceOptions client = server.withAddress(DeviceOptions.parseAddress("127.0.0.2"));
        return new LoopbackSettings("soft0", server, client, Mtu.MTU_256, 0, SEED_POLL_TIMEOUT);
    }

    /** The same settings with another path MTU. */
    public LoopbackSettings withPathMtu(Mtu mtu) {
        return new LoopbackSettings(deviceName, server, client, mtu, size, pollTimeout, clientDeviceName);
    }

    /** The same settings with another size (0 = the scenario's own). */
    public LoopbackSettings withSize(int bytes) {
        return new LoopbackSettings(deviceName, server, client, pathMtu, bytes, pollTimeout, clientDeviceName);
    }

    /** The same settings with another poll timeout. */
    public LoopbackSettings withPollTimeout(Duration timeout) {
        return new LoopbackSettings(deviceName, server, client, pathMtu, size, timeout, clientDeviceName);
    }

    /** Both devices on a link with MTU {@code mtu} (their active MTU follows, as rxe's does). */
    public LoopbackSettings withLinkMtu(int mtu) {
        return new LoopbackSettings(deviceName, server.withLinkMtu(mtu), client.withLinkMtu(mtu), pathMtu, size,
                pollTimeout, clientDeviceName);
    }

    /** The same settings with a fault spec on both devices. */
    public LoopbackSettings withFaults(String spec) {
        return new LoopbackSettings(deviceName, server.withFaults(spec), client.withFaults(spec), pathMtu, size,
                pollTimeout, clientDeviceName);
    }

    /** Both devices writing to the capture {@code file} (null for none). */
    public LoopbackSettings withCapture(java.nio.file.Path file) {
        return new LoopbackSettings(deviceName, server.withCapture(file), client.withCapture(file), pathMtu, size,
                pollTimeout, clientDeviceName);
    }

    /** The client on device {@code name} (the server keeps {@link #deviceName}). */
    public LoopbackSettings withClientDevice(String name) {
        return new LoopbackSettings(deviceName, server, client, pathMtu, size, pollTimeout, name);
    }

    /** The device {@code role} opens. */
    public String deviceName(PeerRole role) {
        return role == PeerRole.SERVER ? deviceName : clientDeviceName;
    }

    /** The size, or {@code fallback} when none was given. */
    public int sizeOr(int fallback) {
        return size == 0 ? fallback : size;
    }
}
