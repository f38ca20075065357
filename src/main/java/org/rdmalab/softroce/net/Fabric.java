package org.rdmalab.softroce.net;

import java.net.Inet4Address;
import org.rdmalab.verbs.VerbsException;

/**
 * Where a software device's datagrams travel: real UDP sockets ({@link UdpFabric}) or an
 * in-memory network with a virtual clock ({@link SimulatedNetwork}). A fabric hands each opened
 * device an {@link Endpoint}: its address, its event loop and a way to send.
 */
public interface Fabric {

    /**
     * Binds {@code address:port} for a device and starts its loop.
     *
     * @param name the thread name ("soft0@127.0.0.1 transport")
     * @param receiver called on the loop for every datagram that arrives
     * @throws VerbsException EADDRINUSE (or the socket's errno) when the address cannot be bound
     */
    Endpoint open(String verb, String name, Inet4Address address, int port, Receiver receiver) throws VerbsException;

    /**
     * {@code address} as the 32-bit number its four bytes make, first byte highest (how datagrams
     * name their source and destination here).
     */
    static int toInt(Inet4Address address) {
        byte[] ip = address.getAddress();
        return ((ip[0] & 0xff) << 24) | ((ip[1] & 0xff) << 16) | ((ip[2] & 0xff) << 8) | (ip[3] & 0xff);
    }

    /** Receives datagrams on the loop thread; the array is reused after the call returns. */
    interface Receiver {
        void onDatagram(int sourceIp, int sourcePort, byte[] buffer, int offset, int length);

        /**
         * The endpoint can take datagrams again after {@link Endpoint#send} answered
         * {@link SendResult#BLOCKED} and {@link Endpoint#awaitWritable} was called; on the loop.
         */
        void onWritable();

        /**
         * A turn of the loop begins that is not a post: the loop thread's own, or a polling
         * caller's. Replies held back during an earlier poll ({@link EventLoop#holdingReplies})
         * leave now at the latest.
         */
        default void onTurn() {
        }

        /** Whether replies are held back for a later turn ({@link #onTurn}); on the loop. */
        default boolean holdsReplies() {
            return false;
        }
    }

    /** What became of a datagram handed to {@link Endpoint#send}. */
    enum SendResult {
        /** Handed to the network (which may still lose it on the way). */
        SENT,
        /**
         * Not taken: the socket's send buffer is full. Nothing left; the caller keeps the
         * datagram and sends it again once {@link Receiver#onWritable} says there is room.
         */
        BLOCKED,
        /** Refused with an error (no route, the address went away): lost, as on a broken link. */
        FAILED
    }

    /** A bound device address. */
    interface Endpoint extends AutoCloseable {

        /** The loop that owns the endpoint. */
        EventLoop loop();

        /** The UDP port actually bound (the one the datagrams carry as their source port). */
        int localPort();

        /**
         * Sends {@code length} bytes of {@code buffer} at {@code offset} as one UDP datagram; call
         * on the loop. Never waits: a full send buffer answers {@link SendResult#BLOCKED}.
         */
        SendResult send(int destinationIp, int destinationPort, byte[] buffer, int offset, int length);

        /**
         * {@link #send(int, int, byte[], int, int)} of the bytes from {@code datagram}'s position
         * to its limit; a socket sends a direct buffer without copying it first.
         */
        default SendResult send(int destinationIp, int destinationPort, java.nio.ByteBuffer datagram) {
            byte[] copy = new byte[datagram.remaining()];
            datagram.get(datagram.position(), copy);
            return send(destinationIp, destinationPort, copy, 0, copy.length);
        }

        /**
         * Asks for one {@link Receiver#onWritable} call on the loop as soon as the endpoint has
         * room again (the selector's write-readiness); call on the loop after a
         * {@link SendResult#BLOCKED}.
         */
        void awaitWritable();

        /**
         * The IPv4 TOS and TTL the datagrams really carry for a QP that asked for {@code tos} and
         * {@code ttl} (a capture shows these); by default what was asked.
         */
        default int sentTos(int tos) {
            return tos;
        }

        /** See {@link #sentTos}. */
        default int sentTtl(int ttl) {
            return ttl;
        }

        /** Unbinds and stops the loop (waits a bounded time for its thread). Idempotent. */
        @Override
        void close();
    }
}
