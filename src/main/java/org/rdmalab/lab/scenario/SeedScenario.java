package org.rdmalab.lab.scenario;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/** The seed demo's data path: RDMA WRITE of "HelloWorld" into the server, then RDMA READ back. */
final class SeedScenario implements Scenario {

    /** The seed's message with its NUL: MSG_SIZE = strlen("HelloWorld") + 1 = 11. */
    static final byte[] MESSAGE = "HelloWorld\0".getBytes(StandardCharsets.US_ASCII);

    @Override
    public String name() {
        return "seed";
    }


    @Override
    public Plan plan(LoopbackSettings settings) {
        return Plan.connected(PeerSetup.seed(MESSAGE.length), PeerSetup.seed(MESSAGE.length));
    }

    @Override
    public ScenarioResult traffic(ScenarioRun run) throws VerbsException {
        Checks checks = run.checks();
        int size = MESSAGE.length;
        ScenarioSide server = run.server();
        ScenarioSide client = run.client();
        org.rdmalab.control.ConnectionData remote = server.connectionData();
        int signaled = SendFlag.SIGNALED.value();

        client.fill(0, MESSAGE, "\"HelloWorld\"");
        server.show(0, size, "before the RDMA WRITE");
        run.note("RDMA WRITE: the client names the server's address and rkey; the server's CPU does nothing");
        client.postSend(SendWorkRequest.write(1, client.sge(), remote.addr(), remote.rkey(), signaled));
        Optional<WorkCompletion> write = client.poll(run.pollTimeout());
        checks.completion(write, 1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, -1);
        checks.bytes(server.show(0, size, "after the client's RDMA WRITE"), MESSAGE, "the server's buffer");

        client.fill(0, new byte[size], "zeros");
        run.note("RDMA READ: the client fetches the server's buffer into its own, again without the server's CPU");
        client.postSend(SendWorkRequest.read(2, client.sge(), remote.addr(), remote.rkey(), signaled));
        Optional<WorkCompletion> read = client.poll(run.pollTimeout());
        checks.completion(read, 2, WcStatus.SUCCESS, WcOpcode.RDMA_READ, size);
        checks.bytes(client.show(0, size, "after the RDMA READ"), MESSAGE, "the client's buffer");

        checks.that(server.drain().isEmpty(), "the server's CQ is empty: WRITE and READ are one-sided",
                "the server got completions for one-sided operations");
        return checks.result("the server's buffer shows \"HelloWorld\" and the client read it back");
    }
}
