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
        BAD_RKEY("bad-rkey", WcStatus.REM_ACCESS_ERR),
        OUT_OF_BOUNDS("out-of-bounds", WcStatus.REM_ACCESS_ERR),
        MR_NO_REMOTE_WRITE("mr-no-remote-write", WcStatus.REM_ACCESS_ERR),
        QP_NO_REMOTE_WRITE("qp-no-remote-write", WcStatus.REM_INV_REQ_ERR);

        private final String scenarioName;
        private final WcStatus status;

        Kind(String scenarioName, WcStatus status) {
            this.scenarioName = scenarioName;
            this.status = status;
        }
    }

    private static final int BUFFER = 64;
    /** The server's rights without REMOTE_WRITE. */
    private static final int NO_REMOTE_WRITE = AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ);
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
    public Plan plan(LoopbackSettings settings) {
        PeerSetup serverSetup = PeerSetup.roomy(BUFFER);
        if (kind == Kind.MR_NO_REMOTE_WRITE) {
            serverSetup = serverSetup.withMrAccess(NO_REMOTE_WRITE);
        } else if (kind == Kind.QP_NO_REMOTE_WRITE) {
            serverSetup = serverSetup.withQpAccess(NO_REMOTE_WRITE);
        }
        return Plan.connected(serverSetup, PeerSetup.roomy(BUFFER));
    }

    @Override
    public ScenarioResult traffic(ScenarioRun run) throws VerbsException {
        Checks checks = run.checks();
        int noRemoteWrite = NO_REMOTE_WRITE;
        ScenarioSide server = run.server();
        ScenarioSide client = run.client();
        org.rdmalab.control.ConnectionData remote = server.connectionData();
        int signaled = SendFlag.SIGNALED.value();

        long address = remote.addr();
        int rkey = remote.rkey();
        int length = MESSAGE.length;
        switch (kind) {
            case BAD_RKEY -> {
                rkey = remote.rkey() ^ 0x00ff_ff00;
                run.note(String.format("the client uses rkey 0x%x; the server's MR has rkey 0x%x", rkey,
                        remote.rkey()));
            }
            case OUT_OF_BOUNDS -> {
                address = remote.addr() + BUFFER - 8;
                length = 16;
                run.note(String.format("%d bytes at 0x%x end 8 bytes past the server's %d-byte MR (0x%x..0x%x)",
                        length, address, BUFFER, remote.addr(), remote.addr() + BUFFER - 1));
            }
            case MR_NO_REMOTE_WRITE -> run.note("the server registered its buffer with "
                    + AccessFlag.names(noRemoteWrite) + " only; the rkey is valid but does not allow writing");
            case QP_NO_REMOTE_WRITE -> run.note("the MR allows remote writes, but the server's QP was moved to INIT"
                    + " with qp_access_flags " + AccessFlag.names(noRemoteWrite)
                    + ": the QP refuses every RDMA WRITE before looking at keys");
            default -> throw new IllegalStateException(kind.toString());
        }
        client.fill(0, MESSAGE, "\"HelloWorld\"");
        run.note("one ibv_post_send with two WRs: the faulty WRITE, then a good READ behind it");
        client.postSend(List.of(
                SendWorkRequest.write(1, client.sge(0, length), address, rkey, signaled),
                SendWorkRequest.read(2, client.sge(32, MESSAGE.length), remote.addr(), remote.rkey(),
                        signaled)));
        checks.completion(client.poll(run.pollTimeout()), 1, kind.status, null, -1);
        checks.completion(client.poll(run.pollTimeout()), 2, WcStatus.WR_FLUSH_ERR, null, -1);
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
