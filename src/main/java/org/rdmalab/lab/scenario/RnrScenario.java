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
    public Plan plan(LoopbackSettings settings) {
        return Plan.connected(PeerSetup.roomy(16), PeerSetup.roomy(16));
    }

    @Override
    public ScenarioResult traffic(ScenarioRun run) throws VerbsException {
        Checks checks = run.checks();
        ScenarioSide server = run.server();
        ScenarioSide client = run.client();
        run.note(String.format("the server posts no receive: it answers the SEND with an RNR NAK (\"try again in"
                + " %s\", its min_rnr_timer 0x%x); the client's rnr_retry is %d, so it gives up at once",
                ScenarioPrinter.millis(RnrTimer.nanos(server.setup().minRnrTimer())), server.setup().minRnrTimer(),
                client.setup().rnrRetry()));
        client.fill(0, SeedScenario.MESSAGE, "\"HelloWorld\"");
        client.postSend(SendWorkRequest.send(1, client.sge(0, SeedScenario.MESSAGE.length),
                SendFlag.SIGNALED.value()));
        checks.completion(client.poll(run.pollTimeout()), 1, WcStatus.RNR_RETRY_EXC_ERR, null, -1);
        checks.that(client.queryState() == QpState.ERR, "the client's QP is in IBV_QPS_ERR",
                "the client's QP should be in IBV_QPS_ERR after an error completion");
        checks.that(server.drain().isEmpty(), "the server's CQ is empty", "the server's CQ should be empty");
        run.note("with rnr_retry 7 the client would retry for ever; real programs post receives first");
        return checks.result("the SEND completed with IBV_WC_RNR_RETRY_EXC_ERR");
    }
}
