package org.rdmalab.bench;

import java.time.Duration;
import java.util.Map;
import org.rdmalab.control.lab.Facts;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.lab.LabConnection;

/**
 * The sides of a server/client run meeting over RDMA Lab's own TCP protocol ({@code control.lab}):
 * its hello checks that the peer is RDMA Lab of the same protocol version, connection data travel
 * in a {@code CONNECTION_DATA} frame and each meeting point is a named {@code SYNC}.
 */
final class LabRendezvous implements Rendezvous {

    private final LabConnection connection;
    private final String peerAddress;

    LabRendezvous(LabConnection connection) {
        this.connection = connection;
        String peer = connection.channel().peer();
        int colon = peer.lastIndexOf(':');
        this.peerAddress = colon > 0 ? peer.substring(0, colon) : peer;
    }

    @Override
    public ConnectionData exchange(ConnectionData local, Duration timeout) throws BenchException {
        try {
            connection.channel().setReadTimeout(timeout);
            return connection.exchange(local);
        } catch (ControlException e) {
            throw new BenchException(e.getMessage(), e);
        }
    }

    @Override
    public void sync(String name, Duration timeout) throws BenchException {
        try {
            connection.channel().setReadTimeout(timeout);
            connection.sync(name);
        } catch (ControlException e) {
            if (e.reason() == ControlException.Reason.INTERRUPTED) {
                throw new BenchStopped();
            }
            if (e.reason() == ControlException.Reason.PEER_CLOSED) {
                throw new PeerGone(e.getMessage(), e);
            }
            throw new BenchException(e.getMessage()
                    + (e.reason() == ControlException.Reason.PROTOCOL ? " (start both sides with the same options)" : ""),
                    e);
        }
    }

    @Override
    public Map<String, String> swap(Map<String, String> local, Duration timeout) throws BenchException {
        try {
            connection.channel().setReadTimeout(timeout);
            return connection.exchangeFacts(Facts.of(local)).values();
        } catch (ControlException e) {
            if (e.reason() == ControlException.Reason.INTERRUPTED) {
                throw new BenchStopped();
            }
            if (e.reason() == ControlException.Reason.PEER_CLOSED) {
                throw new PeerGone(e.getMessage(), e);
            }
            throw new BenchException(e.getMessage(), e);
        }
    }

    @Override
    public String peerAddress() {
        return peerAddress;
    }

    @Override
    public String method() {
        return "Ethernet";
    }

    @Override
    public boolean peerClosed() {
        return connection.channel().peerClosed();
    }

    @Override
    public void close() {
        connection.close();
    }
}
