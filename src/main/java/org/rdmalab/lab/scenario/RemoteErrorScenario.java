package org.rdmalab.lab.scenario;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcStatus;

/**
 * An RDMA WRITE the server's side refuses, followed by a READ in the same post: the WRITE completes
 * with the error the responder's NAK carries, the client's QP goes to ERR and the READ is flushed.
 */
final class RemoteErrorScenario implements Scenario {

    /** What is wrong with the WRITE. */
    enum Kind {
        BAD_RKEY("bad-rkey", WcStatus.REM_ACCESS_ERR,
                "RDMA WRITE with an rkey the server never gave out -> NAK remote access error -> IBV_WC_REM_ACCESS_ERR"),
        OUT_OF_BOUNDS("out-of-bounds", WcStatus.REM_ACCESS_ERR,
                "RDMA WRITE that runs past the end of the server's MR -> IBV_WC_REM_ACCESS_ERR"),
        MR_NO_REMOTE_WRITE("mr-no-remote-write", WcStatus.REM_ACCESS_ERR,
                "RDMA WRITE into an MR registered without IBV_ACCESS_REMOTE_WRITE -> IBV_WC_REM_ACCESS_ERR"),
        QP_NO_REMOTE_WRITE("qp-no-remote-write", WcStatus.REM_INV_REQ_ERR,
                "RDMA WRITE to a QP whose qp_access_flags lack REMOTE_WRITE -> NAK invalid request"
                        + " -> IBV_WC_REM_INV_REQ_ERR");

        private final String scenarioName;
        private final WcStatus status;
        private final String description;

        Kind(String scenarioName, WcStatus status, String description) {
            this.scenarioName = scenarioName;
            this.status = status;
            this.description = description;
        }
    }

    private static final int BUFFER = 64;
    private static final byte[] MESSAGE = "HelloWorld\0".getBytes(StandardCharsets.US_ASCII);

    private final Kind kind;

    RemoteErrorScenario(Kind kind) {
        this.kind = kind;
    }

    @Override
    public String name() {
        return kind.scenarioName;
    }

    @Override
    public String description() {
        return kind.description + ", then IBV_WC_WR_FLUSH_ERR for the next WR";
    }

    @Override
    public ScenarioResult run(LoopbackLab lab) throws VerbsException {
        Checks checks = lab.checks();
        PeerSetup serverSetup = PeerSetup.roomy(BUFFER);
        int noRemoteWrite = AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ);
        if (kind == Kind.MR_NO_REMOTE_WRITE) {
            serverSetup = serverSetup.withMrAccess(noRemoteWrite);
        } else if (kind == Kind.QP_NO_REMOTE_WRITE) {
            serverSetup = serverSetup.withQpAccess(noRemoteWrite);
        }
        LoopbackLab.Connection connection = lab.connect(serverSetup, PeerSetup.roomy(BUFFER));
        Peer server = connection.server();
        Peer client = connection.client();
        ConnectionData remote = server.connectionData();
        int signaled = SendFlag.SIGNALED.value();

        long address = remote.address();
        int rkey = remote.rkey();
        int length = MESSAGE.length;
        switch (kind) {
            case BAD_RKEY -> {
                rkey = remote.rkey() ^ 0x00ff_ff00;
                lab.note(String.format("the client uses rkey 0x%x; the server's MR has rkey 0x%x", rkey,
                        remote.rkey()));
            }
            case OUT_OF_BOUNDS -> {
                address = remote.address() + BUFFER - 8;
                length = 16;
                lab.note(String.format("%d bytes at 0x%x end 8 bytes past the server's %d-byte MR (0x%x..0x%x)",
                        length, address, BUFFER, remote.address(), remote.address() + BUFFER - 1));
            }
            case MR_NO_REMOTE_WRITE -> lab.note("the server registered its buffer with "
                    + AccessFlag.names(noRemoteWrite) + " only; the rkey is valid but does not allow writing");
            case QP_NO_REMOTE_WRITE -> lab.note("the MR allows remote writes, but the server's QP was moved to INIT"
                    + " with qp_access_flags " + AccessFlag.names(noRemoteWrite)
                    + ": the QP refuses every RDMA WRITE before looking at keys");
            default -> throw new IllegalStateException(kind.toString());
        }
        client.fill(0, MESSAGE, "\"HelloWorld\"");
        lab.note("one ibv_post_send with two WRs: the faulty WRITE, then a good READ behind it");
        client.postSend(List.of(
                SendWorkRequest.write(1, client.mr().sge(0, length), address, rkey, signaled),
                SendWorkRequest.read(2, client.mr().sge(32, MESSAGE.length), remote.address(), remote.rkey(),
                        signaled)));
        checks.completion(client.poll(lab.pollTimeout()), 1, kind.status, null, -1);
        checks.completion(client.poll(lab.pollTimeout()), 2, WcStatus.WR_FLUSH_ERR, null, -1);
        checks.that(client.queryState() == QpState.ERR, "the client's QP is in IBV_QPS_ERR",
                "the client's QP should be in IBV_QPS_ERR after an error completion");
        checks.that(server.queryState() == QpState.ERR, "the server's QP went to IBV_QPS_ERR too (it sent the NAK)",
                "the server's QP should be in IBV_QPS_ERR after refusing the request");
        checks.that(server.drain().isEmpty(), "the server's CQ is empty: no receive was posted",
                "the server's CQ should be empty (no receive was posted)");
        server.show(0, 16, "untouched");
        return checks.result("the WRITE completed with " + kind.status.cName()
                + " and the READ behind it with IBV_WC_WR_FLUSH_ERR");
    }
}
