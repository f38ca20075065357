package org.rdmalab.control.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;

/**
 * What a lab connection does with each message that arrives while it waits for another: the ones
 * that mean the two sides run different scenarios, a peer's error, a peer that ends the session, a
 * sync that overtook a snapshot, and the facts doctor exchanges. The peer is a script of frames.
 */
@Timeout(30)
class LabConversationTest {

    private static final ConnectionData PEER = new ConnectionData(QpType.RC, 0x12, 0x200, 0,
            Gid.parse("::ffff:10.0.0.2"), 0x2000, 0x33, 11, Mtu.MTU_1024);

    private static LabConnection open(LabMessage... peer) throws ControlException {
        ByteArrayOutputStream script = new ByteArrayOutputStream();
        script.writeBytes(LabCodec.frame(new Hello(1, "peer")));
        for (LabMessage message : peer) {
            script.writeBytes(LabCodec.frame(message));
        }
        return LabConnection.open(ControlChannel.of(new ByteArrayInputStream(script.toByteArray()),
                new ByteArrayOutputStream(), "p:1"), "me");
    }

    private static ControlException syncFails(LabMessage... peer) throws ControlException {
        try (LabConnection lab = open(peer)) {
            return assertThrows(ControlException.class, () -> lab.sync("rts"));
        }
    }

    @Test
    void aHelloConnectionDataOrAnotherSyncWhileWaitingMeansAnotherScenario() throws ControlException {
        ControlException hello = syncFails(new Hello(1, "again"));
        assertEquals(ControlException.Reason.PROTOCOL, hello.reason());
        assertEquals("peer p:1 sent a HELLO message while this side waited for sync 'rts'; both sides must run the"
                + " same scenario", hello.getMessage());
        assertEquals("peer p:1 sent its connection data while this side waited for sync 'rts'; both sides must run"
                + " the same scenario", syncFails(new ConnectionDataMessage(PEER)).getMessage());
        assertEquals("this side is at sync 'rts' but peer p:1 is at sync 'rtr'; both sides must run the same scenario",
                syncFails(new Sync("rtr")).getMessage());
        try (LabConnection lab = open(new Sync("rts"))) {
            ControlException sync = assertThrows(ControlException.class, () -> lab.exchange(PEER));
            assertEquals("peer p:1 sent sync 'rts' while this side waited for the peer's connection data; both sides"
                    + " must run the same scenario", sync.getMessage());
        }
    }

    @Test
    void aPeersErrorOrByeEndsTheWaitWithWhatHappened() throws ControlException {
        ControlException error = syncFails(new ErrorMessage(2, "ibv_modify_qp failed: EINVAL"));
        assertEquals(ControlException.Reason.PEER_ERROR, error.reason());
        assertEquals("peer p:1 reported: ibv_modify_qp failed: EINVAL (error 2)", error.getMessage());
        ControlException bye = syncFails(new Bye());
        assertEquals(ControlException.Reason.PEER_CLOSED, bye.reason());
        assertEquals("peer p:1 ended the session while this side waited for sync 'rts'", bye.getMessage());
        ControlException closed = syncFails();
        assertEquals(ControlException.Reason.PEER_CLOSED, closed.reason());
        assertEquals("peer p:1 closed the connection after 0 of 4 bytes of the frame header (while this side waited"
                + " for sync 'rts')", closed.getMessage());
    }

    @Test
    void aByeBeforeASnapshotReplyStillLetsTheReplyArriveAndTheSessionEnd() throws ControlException {
        try (LabConnection lab = open(new Bye(), new BufferReply(0, new byte[] {7}))) {
            assertEquals(1, lab.readPeerBuffer(0, 1).length);
            lab.finish(); // the peer's bye was taken while waiting for the reply
        }
    }

    @Test
    void finishTellsTheListenerWhatComesBeforeThePeersByeAndEndsQuietlyWhenThePeerJustCloses()
            throws ControlException {
        List<LabMessage> heard = new ArrayList<>();
        QpStateMessage state = new QpStateMessage(0x12, QpState.RTS);
        try (LabConnection lab = open(state, new Bye())) {
            lab.onMessage(heard::add);
            lab.finish();
        }
        assertEquals(List.of(state), heard);
        try (LabConnection lab = open()) {
            lab.finish();
        }
        try (LabConnection lab = open(new Sync("late"))) {
            ControlException e = assertThrows(ControlException.class, lab::finish);
            assertEquals("peer p:1 sent sync 'late' while this side waited for the peer's bye; both sides must run"
                    + " the same scenario", e.getMessage());
        }
    }

    @Test
    void factsAreExchangedAndTheNextMessageIsHandedOut() throws ControlException {
        Facts theirs = Facts.of(Map.of("mtu", "1024"));
        try (LabConnection lab = open(theirs, new Sync("x"))) {
            assertEquals(theirs, lab.exchangeFacts(Facts.of(Map.of("mtu", "4096"))));
            assertEquals(new Sync("x"), lab.receive());
        }
    }
}
