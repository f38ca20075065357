package org.rdmalab.softroce;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.rdmalab.capture.PcapWriter;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;

/**
 * A device's tap into a pcap file. Devices given the same path share one {@link PcapWriter}; it is
 * closed when the last of them closes. A packet between two devices sharing a file is written
 * once, when it is sent (as tcpdump on the loopback interface would show it); packets from other
 * senders are written when received. Thread-safe.
 */
final class CaptureTap {

    private static final Map<Path, Shared> OPEN = new HashMap<>();

    private static final class Shared {
        final PcapWriter writer;
        final Set<Long> endpoints = new HashSet<>();
        int users;

        Shared(PcapWriter writer) {
            this.writer = writer;
        }
    }

    private final Path path;
    private final Shared shared;
    private final long endpoint;
    private boolean closed;

    private CaptureTap(Path path, Shared shared, long endpoint) {
        this.path = path;
        this.shared = shared;
        this.endpoint = endpoint;
    }

    /** A tap on {@code file} for the device at {@code ip:port}, or null when {@code file} is null. */
    static CaptureTap open(Path file, int ip, int port) throws VerbsException {
        if (file == null) {
            return null;
        }
        Path path = file.toAbsolutePath().normalize();
        long endpoint = key(ip, port);
        synchronized (OPEN) {
            Shared shared = OPEN.get(path);
            if (shared == null) {
                try {
                    shared = new Shared(PcapWriter.open(path));
                } catch (IOException e) {
                    throw new VerbsException("ibv_create_qp", Errno.EIO.value(), "cannot write the capture file "
                            + file + ": " + e.getMessage(), e);
                }
                OPEN.put(path, shared);
            }
            shared.users++;
            shared.endpoints.add(endpoint);
            return new CaptureTap(path, shared, endpoint);
        }
    }

    private static long key(int ip, int port) {
        return ((ip & 0xFFFFFFFFL) << 16) | port;
    }

    /** Writes one datagram; a received one is skipped when its sender writes to the same file. */
    void write(long epochNanos, int source, int sourcePort, int destination, int destinationPort, int tos, int ttl,
               int ipId, byte[] buffer, int offset, int length, boolean sent) {
        if (!sent) {
            synchronized (OPEN) {
                if (shared.endpoints.contains(key(source, sourcePort))) {
                    return;
                }
            }
        }
        shared.writer.write(epochNanos, source, sourcePort, destination, destinationPort, tos, ttl, ipId, buffer,
                offset, length);
    }

    /**
     * Sends a datagram through {@code send} and writes it only when the fabric took it, holding the
     * file meanwhile: a device sharing the file cannot write the reply before the request, and a
     * datagram the socket had no room for is written when it is really sent.
     */
    Fabric.SendResult writeIfSent(long epochNanos, int source, int sourcePort, int destination, int destinationPort,
                                  int tos, int ttl, byte[] buffer, int offset, int length,
                                  java.util.function.Supplier<Fabric.SendResult> send) {
        synchronized (shared.writer) {
            Fabric.SendResult result = send.get();
            if (result == Fabric.SendResult.SENT) {
                shared.writer.write(epochNanos, source, sourcePort, destination, destinationPort, tos, ttl, buffer,
                        offset, length);
            }
            return result;
        }
    }

    /** Leaves the file; the last user closes it. Idempotent. */
    void close() {
        synchronized (OPEN) {
            if (closed) {
                return;
            }
            closed = true;
            shared.endpoints.remove(endpoint);
            if (--shared.users == 0) {
                OPEN.remove(path);
                try {
                    shared.writer.close();
                } catch (IOException e) {
                    java.util.logging.Logger.getLogger(CaptureTap.class.getName())
                            .warning("closing capture " + path + " failed: " + e.getMessage());
                }
            }
        }
    }
}
