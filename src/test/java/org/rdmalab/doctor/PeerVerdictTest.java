package org.rdmalab.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.rdmalab.text.Phrase;

/**
 * The words of every probe verdict, including those two healthy soft0 doctors cannot produce (a
 * failed RTR, an MTU problem, a remote access error, late acknowledgements, bytes that landed
 * elsewhere). The soft0 pairs in DoctorCommandTest show the black holes end to end.
 */
class PeerVerdictTest {

    private static final SideFacts CLIENT = new SideFacts("rxe0", "libibverbs", "10.0.2.16", "eth0", 24, 1500, 1024,
            -1, "Ethernet", "ACTIVE", 2, "::ffff:10.0.2.16", "RoCE v2");
    private static final SideFacts SERVER = new SideFacts("rxe0", "libibverbs", "10.0.2.15", "eth0", 24, 1500, 1024,
            -1, "Ethernet", "ACTIVE", 3, "::ffff:10.0.2.15", "RoCE v2");

    private static Check verdict(boolean small, String status, String seen, boolean dataOk, String answers) {
        return PeerDoctor.verdict(new PeerDoctor.WriteOutcome("client", "server", CLIENT, SERVER, small ? 16 : 1024,
                small, status, seen, dataOk, answers, ""));
    }

    @Test
    void aWriteThatArrivedPasses() {
        Check check = verdict(true, "IBV_WC_SUCCESS", "1", true, "1");
        assertEquals(Check.Status.PASS, check.status());
        assertEquals("probe: small write client → server", check.name());
        assertEquals("16-byte RDMA WRITE client → server: IBV_WC_SUCCESS; the server received 1 packet(s) from"
                + " 10.0.2.16, bytes arrived intact", check.found());
    }

    @Test
    void aWriteWhoseBytesAreMissingAtThePeer() {
        Check check = verdict(true, "IBV_WC_SUCCESS", "1", false, "1");
        assertEquals("16-byte RDMA WRITE client → server: IBV_WC_SUCCESS; the server received 1 packet(s) from"
                + " 10.0.2.16, but the bytes at the server differ", check.found());
        assertEquals("the write landed elsewhere: check the address and rkey the peers exchanged", check.fix());
    }

    @Test
    void noPacketAtThePeerIsABlackHoleNamingUdp4791TheGidsAndTheRoute() {
        Check check = verdict(true, "IBV_WC_RETRY_EXC_ERR", "0", false, "0");
        assertEquals("16-byte RDMA WRITE client → server: IBV_WC_RETRY_EXC_ERR; the server saw no packet from"
                + " 10.0.2.16: a black hole; suspects: a firewall dropping UDP 4791 on either machine, the wrong GID or"
                + " IP (10.0.2.16 → 10.0.2.15, GID[2] ::ffff:10.0.2.16 (RoCE v2) → GID[3] ::ffff:10.0.2.15 (RoCE v2)),"
                + " or ARP or the route from 10.0.2.16 to 10.0.2.15", check.found());
        assertEquals("check the firewall line of 'doctor' on both machines (allow UDP 4791), that 10.0.2.15 is the"
                + " peer's address on its RDMA netdev, and ip neigh / ip route get 10.0.2.15", check.fix());
    }

    @Test
    void aPeerWithoutCountersCountsAsNoPacketSeen() {
        Check check = verdict(true, "no completion within 5000 ms", "", false, "");
        assertEquals("16-byte RDMA WRITE client → server: no completion within 5000 ms; the server has no packet"
                + " counters: a black hole; suspects: a firewall dropping UDP 4791 on either machine, the wrong GID or"
                + " IP (10.0.2.16 → 10.0.2.15, GID[2] ::ffff:10.0.2.16 (RoCE v2) → GID[3] ::ffff:10.0.2.15 (RoCE v2)),"
                + " or ARP or the route from 10.0.2.16 to 10.0.2.15", check.found());
    }

    @Test
    void packetsInButNoAcknowledgementBackIsABlackHoleTheOtherWay() {
        Check check = verdict(true, "IBV_WC_RETRY_EXC_ERR", "4", false, "0");
        assertEquals("16-byte RDMA WRITE client → server: IBV_WC_RETRY_EXC_ERR; the server received 4 packet(s) from"
                + " 10.0.2.16 but no acknowledgement came back: a black hole from the server to the client; suspects:"
                + " a firewall dropping UDP 4791 on either machine, the wrong GID or IP (10.0.2.15 → 10.0.2.16, GID[3]"
                + " ::ffff:10.0.2.15 (RoCE v2) → GID[2] ::ffff:10.0.2.16 (RoCE v2)), or ARP or the route from 10.0.2.15"
                + " to 10.0.2.16", check.found());
        assertEquals("check the firewall on the client (UDP 4791 in) and the route from 10.0.2.15 back to 10.0.2.16",
                check.fix());
    }

    @Test
    void acknowledgementsThatCameTooLateAreNotABlackHole() {
        Check check = verdict(true, "IBV_WC_RETRY_EXC_ERR", "4", false, "2");
        assertEquals("16-byte RDMA WRITE client → server: IBV_WC_RETRY_EXC_ERR; the server received 4 packet(s) from"
                + " 10.0.2.16 and the client received 2 packet(s) back, too late: acknowledgements took longer than the"
                + " QP timeout (537 ms x 4 tries)", check.found());
        assertEquals("a machine is overloaded or the link is slow (tc netem delay?): check the load and run doctor"
                + " again", check.fix());
    }

    @Test
    void onlyTheFullSizeFailingIsAnMtuProblem() {
        Check check = verdict(false, "IBV_WC_RETRY_EXC_ERR", "0", false, "0");
        assertEquals("probe: full write client → server", check.name());
        assertEquals("1024-byte RDMA WRITE client → server: IBV_WC_RETRY_EXC_ERR; the server saw no packet from"
                + " 10.0.2.16: small writes pass but a full 1024-byte packet does not, an MTU problem", check.found());
        assertEquals("use --mtu 512, or give both netdevs the same MTU large enough for 1104 bytes", check.fix());
    }

    @Test
    void remoteAccessErrorsPointAtTheRkeyAndTheAccessFlags() {
        for (String status : new String[] {"IBV_WC_REM_ACCESS_ERR", "IBV_WC_REM_INV_REQ_ERR"}) {
            Check check = verdict(true, status, "1", false, "1");
            assertEquals("16-byte RDMA WRITE client → server: " + status + "; the server received 1 packet(s) from"
                    + " 10.0.2.16: remote access error, the server refused the write", check.found());
            assertEquals("check the rkey and address sent in the exchange and that the MR and the QP allow"
                    + " IBV_ACCESS_REMOTE_WRITE", check.fix());
        }
    }

    @Test
    void aFailedRtrPointsAtTheGrhAndGid() {
        Check check = PeerDoctor.stageFailure("RTR", "ibv_modify_qp failed: EINVAL (22, Invalid argument): bad"
                + " sgid_index", "", "server", Phrase.from(Check.PEER, "peer.probe.rtr.gids", PeerDoctor.RTR_FAILED,
                CLIENT.gidText(), SERVER.gidText()), PeerDoctor.RTR_FIX);
        assertEquals("probe: RTR", check.name());
        assertEquals("ibv_modify_qp to RTR failed: the GRH or GID is wrong (GID[2] ::ffff:10.0.2.16 (RoCE v2) here,"
                + " GID[3] ::ffff:10.0.2.15 (RoCE v2) on the peer): here ibv_modify_qp failed: EINVAL (22, Invalid"
                + " argument): bad sgid_index", check.found());
        assertEquals("use the recommended GID of the GID check on both sides; RoCE needs a GRH (is_global = 1,"
                + " sgid_index, the peer's GID as dgid)", check.fix());
        Phrase x = Phrase.literal("x");
        Phrase y = Phrase.literal("y");
        Check both = PeerDoctor.stageFailure("RTR", "EINVAL", "ETIMEDOUT", "server", x, y);
        assertEquals("x: here EINVAL; on the server ETIMEDOUT", both.found());
        assertEquals("x：本端报告 EINVAL；服务端报告 ETIMEDOUT", both.said().in(java.util.Locale.SIMPLIFIED_CHINESE));
        assertEquals("x: on the server ETIMEDOUT", PeerDoctor.stageFailure("RTR", "", "ETIMEDOUT", "server", x, y)
                .found());
    }

    @Test
    void withNoUsableDeviceAndAddressHereNothingIsComparedInEitherLanguage() {
        Check check = PeerDoctor.nothingToCompare();
        assertEquals("peer", check.name());
        assertEquals(Check.Status.FAIL, check.status());
        assertEquals("this side's own checks found no usable device and address, so nothing was compared",
                check.found());
        assertEquals("fix the checks above first", check.fix());
        assertEquals("本端自己的检查没有找到可用的设备和地址，所以没有进行比较",
                check.said().in(java.util.Locale.SIMPLIFIED_CHINESE));
    }
}
