package org.rdmalab.control.seed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.verbs.Gid;

/** The seed's exchange over byte streams, no sockets. */
class SeedExchangeTest {

    private static final SeedBlock LOCAL = new SeedBlock(0x1000, 0x22, 0x33, 0, Gid.ZERO);
    private static final SeedBlock PEER = new SeedBlock(0x7f0000002000L, 0x44, 0x55, 7,
            Gid.parse("::ffff:10.0.0.2"));

    private static ControlChannel channel(byte[] fromPeer, ByteArrayOutputStream toPeer) {
        return ControlChannel.of(new ByteArrayInputStream(fromPeer), toPeer, "10.0.0.2:12025");
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    @Test
    void writesItsBlockThenReadsThePeersThenSyncs() throws ControlException {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        SeedExchange exchange = new SeedExchange(channel(concat(PEER.serialize(), new byte[] {'x', 'y', 0}), sent));
        assertEquals(PEER, exchange.exchange(LOCAL));
        assertEquals('x', exchange.sync(SeedExchange.SYNC_READY));
        assertEquals('y', exchange.sync(SeedExchange.SYNC_RECEIVED));
        assertEquals(Optional.of((byte) 0), exchange.finalSync(SeedExchange.SYNC_WRITTEN));
        assertArrayEquals(concat(LOCAL.serialize(), new byte[] {'Q', 'R', 'W'}), sent.toByteArray());
    }

    @Test
    void aPeerThatSyncsTwiceMayCloseBeforeTheThirdRound() throws ControlException {
        SeedExchange exchange = new SeedExchange(channel(concat(PEER.serialize(), new byte[] {'Q', 'W'}),
                new ByteArrayOutputStream()));
        exchange.exchange(LOCAL);
        exchange.sync(SeedExchange.SYNC_READY);
        exchange.sync(SeedExchange.SYNC_RECEIVED);
        assertEquals(Optional.empty(), exchange.finalSync(SeedExchange.SYNC_WRITTEN));
    }

    @Test
    void peerClosingMidBlockSaysHowFarItGot() {
        byte[] twelve = Arrays.copyOf(PEER.serialize(), 12);
        SeedExchange exchange = new SeedExchange(channel(twelve, new ByteArrayOutputStream()));
        ControlException e = assertThrows(ControlException.class, () -> exchange.exchange(LOCAL));
        assertEquals(ControlException.Reason.PEER_CLOSED, e.reason());
        assertEquals("peer 10.0.0.2:12025 closed the connection after 12 of 34 bytes of the connection block",
                e.getMessage());
    }

    @Test
    void peerClosingBeforeAnEarlySyncIsAnError() throws ControlException {
        SeedExchange exchange = new SeedExchange(channel(PEER.serialize(), new ByteArrayOutputStream()));
        exchange.exchange(LOCAL);
        ControlException e = assertThrows(ControlException.class, () -> exchange.sync(SeedExchange.SYNC_READY));
        assertTrue(e.getMessage().contains("closed the connection after 0 of 1 bytes of the sync byte"),
                e.getMessage());
    }

    @Test
    void blockArrivingInPiecesIsJoined() throws ControlException {
        byte[] wire = PEER.serialize();
        ByteArrayInputStream trickle = new ByteArrayInputStream(wire) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 5));
            }
        };
        SeedExchange exchange = new SeedExchange(ControlChannel.of(trickle, new ByteArrayOutputStream(), "peer"));
        assertEquals(PEER, exchange.exchange(LOCAL));
    }

    @Test
    void aPeerGoneBeforeTheLastSyncIsWrittenEndsTheSessionQuietly() throws ControlException {
        java.io.OutputStream gone = new java.io.OutputStream() {
            @Override
            public void write(int b) throws java.io.IOException {
                throw new java.io.IOException("Broken pipe");
            }
        };
        SeedExchange exchange = new SeedExchange(ControlChannel.of(new ByteArrayInputStream(new byte[0]), gone,
                "10.0.0.2:12025"));
        assertEquals(Optional.empty(), exchange.finalSync(SeedExchange.SYNC_WRITTEN));
        ControlException early = assertThrows(ControlException.class, () -> exchange.sync(SeedExchange.SYNC_READY));
        assertEquals(ControlException.Reason.PEER_CLOSED, early.reason());
    }
}
