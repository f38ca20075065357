package org.rdmalab.softroce;

import java.net.Inet4Address;
import org.rdmalab.verbs.VerbsException;

/**
 * Where a software device's datagrams travel: real UDP sockets ({@link UdpFabric}) or an
 * in-memory network with a virtual clock ({@link SimulatedNetwork}). A fabric hands each opened
 * device an {@link Endpoint}: its address, its event loop and a way to send.
 */
interface Fabric {

    /**
     * Binds {@code address:port} for a device and starts its loop.
     *
     * @param name the thread name ("soft0@127.0.0.1 transport")
     * @param receiver called on the loop for every datagram that arrives
     * @throws VerbsException EADDRINUSE (or the socket's errno) when the address cannot be bound
     */
    Endpoint open(String verb, String name, Inet4Address address, int port, Receiver receiver) throws VerbsException;

    /** Receives datagrams on the loop thread; the array is reused after the call returns. */
    interface Receiver {
        void onDatagram(int sourceIp, int sourcePort, byte[] buffer, int offset, int length);
    }

    /** A bound device address. */
    interface Endpoint extends AutoCloseable {

        /** The loop that owns the endpoint. */
        EventLoop loop();

        /** The UDP port actually bound (the one the datagrams carry as their source port). */
        int localPort();

        /**
         * Sends {@code length} bytes of {@code buffer} at {@code offset} as one UDP datagram; call
         * on the loop. Returns false when the datagram could not be handed to the network (a full
         * socket buffer): like a congested link, it is lost.
         */
        boolean send(int destinationIp, int destinationPort, byte[] buffer, int offset, int length);

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
