package org.rdmalab.lab.scenario;

import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.RnrTimer;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcStatus;

/** A SEND with no receive posted on the server and rnr_retry 0: IBV_WC_RNR_RETRY_EXC_ERR. */
final class RnrScenario implements Scenario {

    @Override
    public String name() {
        return "rnr";
    }

    @Override
    public String description() {
        return "SEND while the server has no receive posted, rnr_retry 0 -> RNR NAK -> IBV_WC_RNR_RETRY_EXC_ERR";
    }

    @Override
    public ScenarioResult run(LoopbackLab lab) throws VerbsException {
        Checks checks = lab.checks();
        LoopbackLab.Connection connection = lab.connect(PeerSetup.roomy(16), PeerSetup.roomy(16));
        Peer server = connection.server();
        Peer client = connection.client();
        lab.note(String.format("the server posts no receive: it answers the SEND with an RNR NAK (\"try again in"
                + " %s\", its min_rnr_timer 0x%x); the client's rnr_retry is %d, so it gives up at once",
                Peer.millis(RnrTimer.nanos(server.setup().minRnrTimer())), server.setup().minRnrTimer(),
                client.setup().rnrRetry()));
        client.fill(0, SeedScenario.MESSAGE, "\"HelloWorld\"");
        client.postSend(SendWorkRequest.send(1, client.mr().sge(0, SeedScenario.MESSAGE.length),
                SendFlag.SIGNALED.value()));
        checks.completion(client.poll(lab.pollTimeout()), 1, WcStatus.RNR_RETRY_EXC_ERR, null, -1);
        checks.that(client.queryState() == QpState.ERR, "the client's QP is in IBV_QPS_ERR",
                "the client's QP should be in IBV_QPS_ERR after an error completion");
        checks.that(server.drain().isEmpty(), "the server's CQ is empty", "the server's CQ should be empty");
        lab.note("with rnr_retry 7 the client would retry for ever; real programs post receives first");
        return checks.result("the SEND completed with IBV_WC_RNR_RETRY_EXC_ERR");
    }
}
