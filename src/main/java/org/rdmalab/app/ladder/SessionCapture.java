package org.rdmalab.app.ladder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.rdmalab.capture.PcapWriter;
import org.rdmalab.sched.BackgroundPriority;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.wire.Icrc;

/**
 * Every packet of the lab's session written to a pcap file as it goes, as {@code --pcap} writes it:
 * a packet a lab device sent, once, when it was sent (a packet an injected fault dropped on its way
 * out never reached the wire and is not written), and a packet from another sender (the peer
 * machine) when a lab device received it. Save capture… copies that file. Writing runs on a thread
 * of its own ("rdma-lab capture"), so the JavaFX thread never waits for the disk; the file is a
 * temporary one, deleted when the session ends.
 */
final class SessionCapture implements AutoCloseable {

    private static final long EPOCH_MINUS_NANO_TIME = System.currentTimeMillis() * 1_000_000L - System.nanoTime();

    private final ExecutorService writer = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(BackgroundPriority.process().yielding(runnable), "rdma-lab capture");
        thread.setDaemon(true);
        return thread;
    });
    private Path file;
    private PcapWriter pcap;
    private long written;

    /**
     * Writes {@code packets} (any thread; the order is kept) whose senders are the lab's devices
     * when their source address is in {@code labAddresses}.
     */
    void write(List<PacketEvent> packets, java.util.Set<String> labAddresses) {
        submit(() -> {
            for (PacketEvent packet : packets) {
                if (packet.bytes() != null && onTheWire(packet, labAddresses)) {
                    writeOne(packet);
                }
            }
        });
    }

    /** True for a packet the wire carried, seen once. */
    static boolean onTheWire(PacketEvent packet, java.util.Set<String> labAddresses) {
        boolean fromLab = labAddresses.contains(host(packet.source()));
        return switch (packet.direction()) {
            case SENT -> true;
            case RECEIVED, DROPPED -> !fromLab;
        };
    }

    private void writeOne(PacketEvent packet) {
        try {
            if (pcap == null) {
                file = Files.createTempFile("rdma-lab-session", ".pcap");
                file.toFile().deleteOnExit();
                pcap = PcapWriter.open(file);
            }
        } catch (IOException e) {
            java.util.logging.Logger.getLogger(SessionCapture.class.getName())
                    .warning("the session's capture cannot be written: " + e.getMessage());
            return;
        }
        int source = address(packet.source());
        int destination = address(packet.destination());
        int sourcePort = port(packet.source());
        int destinationPort = port(packet.destination());
        byte[] bytes = packet.bytes();
        int ipId = 0;
        if (packet.direction() != PacketEvent.Direction.SENT && !Icrc.verifyCanonicalIpv4(source, destination, sourcePort,
                destinationPort, bytes, 0, bytes.length)) {
            // Another sender's IPv4 ID is not 0 (kernel rxe, a NIC): the one that makes its ICRC match.
            ipId = Math.max(0, Icrc.recoverIpv4Id(source, destination, sourcePort, destinationPort, bytes, 0, bytes.length));
        }
        pcap.write(packet.timestampNanos() + EPOCH_MINUS_NANO_TIME, source, sourcePort, destination, destinationPort, 0,
                64, ipId, bytes, 0, bytes.length);
        written++;
    }

    /**
     * Copies the capture so far to {@code target} (on the writer's thread, after every packet
     * handed over before) and tells {@code done} how many packets it holds, or the IOException.
     */
    void saveTo(Path target, Consumer<Object> done) {
        submit(() -> {
            try {
                if (pcap == null) {
                    PcapWriter.open(target).close();
                    done.accept(0L);
                    return;
                }
                pcap.flush();
                if (pcap.failure() != null) {
                    throw pcap.failure();
                }
                Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
                done.accept(written);
            } catch (IOException | RuntimeException e) {
                done.accept(e instanceof IOException io ? io : new IOException(e.getMessage(), e));
            }
        });
    }

    /** Starts a new file for a new session (the old one is deleted). */
    void restart() {
        submit(this::release);
    }

    private void release() {
        written = 0;
        if (pcap != null) {
            try {
                pcap.close();
            } catch (IOException e) {
                // A temporary file: nothing to keep.
            }
            pcap = null;
        }
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // deleteOnExit takes it.
            }
            file = null;
        }
    }

    private void submit(Runnable task) {
        try {
            writer.execute(task);
        } catch (RejectedExecutionException e) {
            // Closed with the window.
        }
    }

    /** Deletes the file and ends the thread, waiting up to 2 s for what is queued. */
    @Override
    public void close() {
        submit(this::release);
        writer.shutdown();
        try {
            writer.awaitTermination(2, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String host(String endpoint) {
        int colon = endpoint.lastIndexOf(':');
        return colon < 0 ? endpoint : endpoint.substring(0, colon);
    }

    private static int port(String endpoint) {
        int colon = endpoint.lastIndexOf(':');
        return colon < 0 ? org.rdmalab.wire.UdpPorts.ROCE_V2 : Integer.parseInt(endpoint.substring(colon + 1));
    }

    /** The IPv4 address of an "a.b.c.d:port" endpoint as an int (0 when it is not one). */
    static int address(String endpoint) {
        String[] parts = host(endpoint).split("\\.");
        if (parts.length != 4) {
            return 0;
        }
        int value = 0;
        try {
            for (String part : parts) {
                value = value << 8 | (Integer.parseInt(part) & 0xff);
            }
        } catch (NumberFormatException e) {
            return 0;
        }
        return value;
    }
}
