package org.rdmalab.softroce;

import java.net.Inet4Address;
import java.util.HashMap;
import java.util.Map;
import org.rdmalab.softroce.net.EventLoop;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.softroce.net.SimulatedNetwork;
import org.rdmalab.verbs.VerbsException;

/**
 * A {@link SimulatedNetwork} whose devices' loops a test steers as a busy poller would: each
 * device's {@link Port} says whether the current turn is a busy-polling caller's
 * ({@link EventLoop#holdingReplies}), lets the test begin a turn ({@link Fabric.Receiver#onTurn}),
 * refuses sends ({@link Fabric.SendResult#FAILED}) or keeps the socket full
 * ({@link Fabric.SendResult#BLOCKED}) until the test gives it room again.
 */
final class TurnFabric implements Fabric {

    /** One device's socket and loop as the test sees them. */
    static final class Port {
        Fabric.Receiver receiver;
        /** The turn running now is a busy poller's. */
        boolean holding;
        /** Sends refused from now on. */
        int failNext;
        /** Sends answered BLOCKED while set. */
        boolean full;
        /** When not negative: datagrams the socket takes before it is full again. */
        int roomFor = -1;
        private boolean writableWanted;

        /** A turn that is not a post begins (the loop thread's own turn when not {@link #holding}). */
        void turn() {
            receiver.onTurn();
        }

        /** The socket has room again; the device hears it if it asked. */
        void room() {
            room(-1);
        }

        /** The socket has room for {@code datagrams} (all it is sent when negative); the device hears it if it asked. */
        void room(int datagrams) {
            full = false;
            roomFor = datagrams;
            if (writableWanted) {
                writableWanted = false;
                receiver.onWritable();
            }
        }
    }

    final SimulatedNetwork net = new SimulatedNetwork();
    private final Map<Integer, Port> ports = new HashMap<>();

    /** The device bound at {@code ip}. */
    Port port(int ip) {
        return ports.get(ip);
    }

    @Override
    public Endpoint open(String verb, String name, Inet4Address address, int udpPort, Receiver receiver)
            throws VerbsException {
        Port port = new Port();
        port.receiver = receiver;
        ports.put(Fabric.toInt(address), port);
        Endpoint inner = net.open(verb, name, address, udpPort, receiver);
        EventLoop innerLoop = inner.loop();
        EventLoop loop = new EventLoop() {
            @Override
            public long nanoTime() {
                return innerLoop.nanoTime();
            }

            @Override
            public void execute(Runnable task) {
                innerLoop.execute(task);
            }

            @Override
            public Timer schedule(long delayNanos, Runnable task) {
                return innerLoop.schedule(delayNanos, task);
            }

            @Override
            public boolean inLoop() {
                return innerLoop.inLoop();
            }

            @Override
            public boolean holdingReplies() {
                return port.holding;
            }
        };
        return new Endpoint() {
            @Override
            public EventLoop loop() {
                return loop;
            }

            @Override
            public int localPort() {
                return inner.localPort();
            }

            @Override
            public SendResult send(int destinationIp, int destinationPort, byte[] buffer, int offset, int length) {
                if (port.failNext > 0) {
                    port.failNext--;
                    return SendResult.FAILED;
                }
                if (port.full) {
                    return SendResult.BLOCKED;
                }
                if (port.roomFor == 0) {
                    port.full = true;
                    return SendResult.BLOCKED;
                }
                if (port.roomFor > 0) {
                    port.roomFor--;
                }
                return inner.send(destinationIp, destinationPort, buffer, offset, length);
            }

            @Override
            public void awaitWritable() {
                port.writableWanted = true;
            }

            @Override
            public void close() {
                inner.close();
            }
        };
    }
}
