package org.rdmalab.softroce.net;

import java.net.Inet4Address;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;

/**
 * An in-memory network with a virtual clock, for exact and fast tests: software devices made here
 * exchange the same encoded datagrams as over UDP (with ICRC, faults and captures), but delivery
 * and every timer run on one virtual timeline that advances only when the test drives it.
 *
 * <p>Single-threaded: create devices, post work and drive the network ({@link #runUntilIdle()},
 * {@link #advance(Duration)}) from one thread. Nothing runs until the network is driven, so a test
 * posts, then runs, then polls.
 *
 * <pre>{@code
 * SimulatedNetwork net = new SimulatedNetwork();
 * Device a = SoftRoceProvider.device(options.withAddress(ip1), net);
 * Device b = SoftRoceProvider.device(options.withAddress(ip2), net);
 * ... qp.postSend(wr); net.runUntilIdle(); cq.poll(1) ...
 * }</pre>
 */
public final class SimulatedNetwork implements Fabric {

    private final PriorityQueue<ScheduledTask> events = new PriorityQueue<>();
    private final Map<Long, SimEndpoint> endpoints = new HashMap<>();
    private final long latencyNanos;
    private long now;
    private long sequence;
    private long delivered;
    private long refused;
    private Interceptor interceptor;
    private int sendBufferDatagrams;
    private long serializationNanos;

    /**
     * Sees every datagram a device hands to the network and says how many copies arrive: 0 loses
     * it, 1 delivers it, 2 delivers it twice. Tests use it to lose exactly the packet they mean.
     */
    @FunctionalInterface
    public interface Interceptor {
        int copies(int sourceIp, int destinationIp, byte[] datagram);
    }

    /** Installs an interceptor (null for none). */
    public void intercept(Interceptor newInterceptor) {
        this.interceptor = newInterceptor;
    }

    /**
     * Delivers a raw datagram to {@code ip:port} after the network latency, as if {@code sourceIp:sourcePort}
     * had sent it (fuzzing and spoofing tests).
     */
    public void inject(int sourceIp, int sourcePort, int ip, int port, byte[] datagram) {
        byte[] copy = datagram.clone();
        enqueue(latencyNanos, () -> {
            SimEndpoint target = endpoints.get(key(ip, port));
            if (target != null && target.open) {
                delivered++;
                target.receiver.onDatagram(sourceIp, sourcePort, copy, 0, copy.length);
            }
        });
    }

    /**
     * Gives every device a send buffer of {@code datagrams} in front of a link that takes one
     * datagram every {@code perDatagram}, as a socket over a slow NIC: a datagram that finds the
     * buffer full is refused (the device sees a full socket buffer), and the device hears when a
     * datagram has left and there is room again. Without a call, sends are never refused.
     */
    public void limitSendBuffer(int datagrams, Duration perDatagram) {
        if (datagrams < 1 || perDatagram.isNegative()) {
            throw new IllegalArgumentException("a send buffer holds at least one datagram and drains at a rate >= 0");
        }
        this.sendBufferDatagrams = datagrams;
        this.serializationNanos = perDatagram.toNanos();
    }

    /** Datagrams refused so far because a device's send buffer was full ({@link #limitSendBuffer}). */
    public long refusedDatagrams() {
        return refused;
    }

    /** A network whose links deliver a datagram 2 µs after it is sent. */
    public SimulatedNetwork() {
        this(Duration.ofNanos(2_000));
    }

    /** A network with the given one-way latency. */
    public SimulatedNetwork(Duration latency) {
        this.latencyNanos = latency.toNanos();
    }

    /** The virtual time in nanoseconds since the network was made. */
    public long nanoTime() {
        return now;
    }

    /** Datagrams delivered so far. */
    public long deliveredDatagrams() {
        return delivered;
    }

    /**
     * Runs events until none is left or the virtual clock passes {@code limit} from now (a QP
     * with infinite RNR retries never goes idle).
     *
     * @return true when the network went idle
     */
    public boolean runUntilIdle(Duration limit) {
        long end = now + limit.toNanos();
        while (!events.isEmpty()) {
            if (events.peek().deadline > end) {
                now = end;
                return false;
            }
            step();
        }
        return true;
    }

    /** Runs until idle, at most ten virtual minutes. */
    public boolean runUntilIdle() {
        return runUntilIdle(Duration.ofMinutes(10));
    }

    /** Runs every event due within {@code duration}, then sets the clock to the end of it. */
    public void advance(Duration duration) {
        long end = now + duration.toNanos();
        while (!events.isEmpty() && events.peek().deadline <= end) {
            step();
        }
        now = end;
    }

    /**
     * Runs events until {@code condition} holds, at most {@code limit} of virtual time.
     *
     * @return whether the condition held
     */
    public boolean runUntil(BooleanSupplier condition, Duration limit) {
        long end = now + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (events.isEmpty() || events.peek().deadline > end) {
                return condition.getAsBoolean();
            }
            step();
        }
        return true;
    }

    private void step() {
        ScheduledTask event = events.poll();
        now = Math.max(now, event.deadline);
        if (!event.cancelled) {
            event.task.run();
        }
    }

    private ScheduledTask enqueue(long delay, Runnable task) {
        ScheduledTask event = new ScheduledTask(now + Math.max(0, delay), sequence++, task);
        events.add(event);
        return event;
    }

    @Override
    public Endpoint open(String verb, String name, Inet4Address address, int port, Receiver receiver)
            throws VerbsException {
        long key = key(Fabric.toInt(address), port);
        if (endpoints.containsKey(key)) {
            throw new VerbsException(verb, Errno.EADDRINUSE, "UDP " + address.getHostAddress() + ":" + port
                    + " is already in use on this simulated network; give this device another address or UDP port");
        }
        SimEndpoint endpoint = new SimEndpoint(key, port, receiver);
        endpoints.put(key, endpoint);
        return endpoint;
    }

    private static long key(int ip, int port) {
        return ((long) ip << 16) | port;
    }

    private final class SimEndpoint implements Endpoint, EventLoop {
        private final long key;
        private final int port;
        private final Receiver receiver;
        private boolean open = true;
        /** Datagrams in this endpoint's send buffer, not yet on the link. */
        private int queued;
        /** When the link finishes the datagram last put on it. */
        private long linkFreeAt;
        private boolean writableWanted;

        SimEndpoint(long key, int port, Receiver receiver) {
            this.key = key;
            this.port = port;
            this.receiver = receiver;
        }

        @Override
        public EventLoop loop() {
            return this;
        }

        @Override
        public int localPort() {
            return port;
        }

        @Override
        public SendResult send(int destinationIp, int destinationPort, byte[] buffer, int offset, int length) {
            long departure = 0;
            if (sendBufferDatagrams > 0) {
                if (queued >= sendBufferDatagrams) {
                    refused++;
                    return SendResult.BLOCKED;
                }
                queued++;
                linkFreeAt = Math.max(now, linkFreeAt) + serializationNanos;
                departure = linkFreeAt - now;
                enqueue(departure, this::left);
            }
            byte[] copy = java.util.Arrays.copyOfRange(buffer, offset, offset + length);
            int sourceIp = (int) (key >>> 16);
            int copies = interceptor == null ? 1 : interceptor.copies(sourceIp, destinationIp, copy);
            for (int i = 0; i < copies; i++) {
                deliver(departure, sourceIp, destinationIp, destinationPort, copy);
            }
            return SendResult.SENT;
        }

        /** A datagram left the send buffer for the link: room for one more. */
        private void left() {
            queued--;
            if (writableWanted && open) {
                writableWanted = false;
                receiver.onWritable();
            }
        }

        @Override
        public void awaitWritable() {
            if (sendBufferDatagrams > 0 && queued >= sendBufferDatagrams) {
                writableWanted = true;
            } else {
                enqueue(0, () -> {
                    if (open) {
                        receiver.onWritable();
                    }
                });
            }
        }

        private void deliver(long departure, int sourceIp, int destinationIp, int destinationPort, byte[] copy) {
            enqueue(departure + latencyNanos, () -> {
                SimEndpoint target = endpoints.get(key(destinationIp, destinationPort));
                if (target != null && target.open) {
                    delivered++;
                    target.receiver.onDatagram(sourceIp, port, copy, 0, copy.length);
                }
            });
        }

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void execute(Runnable task) {
            enqueue(0, () -> {
                if (open) {
                    task.run();
                }
            });
        }

        @Override
        public Timer schedule(long delayNanos, Runnable task) {
            return enqueue(delayNanos, () -> {
                if (open) {
                    task.run();
                }
            });
        }

        @Override
        public boolean inLoop() {
            return true;
        }

        @Override
        public void close() {
            if (open) {
                open = false;
                endpoints.remove(key);
            }
        }
    }
}
