package org.rdmalab.lab.scenario;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/** Two-sided operations: SEND into a posted receive, and RDMA WRITE WITH IMMEDIATE consuming one. */
final class SendScenario implements Scenario {

    static final byte[] MESSAGE = "HelloWorld\0".getBytes(StandardCharsets.US_ASCII);
    static final byte[] WRITTEN = "WriteWithImm\0".getBytes(StandardCharsets.US_ASCII);
    static final int IMMEDIATE = 0x1234abcd;
    private static final int BUFFER = 64;
    private static final int WRITE_OFFSET = 32;

    @Override
    public String name() {
        return "send";
    }


    @Override
    public Plan plan(LoopbackSettings settings) {
        return Plan.connected(PeerSetup.roomy(BUFFER), PeerSetup.roomy(BUFFER));
    }

    @Override
    public ScenarioResult traffic(ScenarioRun run) throws VerbsException {
        Checks checks = run.checks();
        ScenarioSide server = run.server();
        ScenarioSide client = run.client();
        org.rdmalab.control.ConnectionData remote = server.connectionData();
        int signaled = SendFlag.SIGNALED.value();

        run.note("SEND is two-sided: the data lands where the server's posted receive says, not where the client says");
        server.postRecv(ReceiveWorkRequest.of(10, server.sge(0, WRITE_OFFSET)));
        client.fill(0, MESSAGE, "\"HelloWorld\"");
        client.postSend(SendWorkRequest.send(1, client.sge(0, MESSAGE.length), signaled));
        checks.completion(client.poll(run.pollTimeout()), 1, WcStatus.SUCCESS, WcOpcode.SEND, -1);
        checks.completion(server.poll(run.pollTimeout()), 10, WcStatus.SUCCESS, WcOpcode.RECV, MESSAGE.length);
        checks.bytes(server.show(0, MESSAGE.length, "after the SEND"), MESSAGE, "the server's receive buffer");

        run.note("RDMA WRITE WITH IMM: the data goes to the RETH address, the immediate value consumes a receive");
        server.postRecv(ReceiveWorkRequest.of(11, server.sge(0, WRITE_OFFSET)));
        client.fill(16, WRITTEN, "\"WriteWithImm\"");
        client.postSend(SendWorkRequest.writeWithImm(2, client.sge(16, WRITTEN.length),
                remote.addr() + WRITE_OFFSET, remote.rkey(), IMMEDIATE, signaled));
        checks.completion(client.poll(run.pollTimeout()), 2, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, -1);
        Optional<WorkCompletion> received = server.poll(run.pollTimeout());
        checks.completion(received, 11, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, WRITTEN.length);
        checks.immediate(received, IMMEDIATE);
        checks.bytes(server.show(WRITE_OFFSET, WRITTEN.length, "at offset 32 after the WRITE WITH IMM"), WRITTEN,
                "the server's buffer at offset 32");
        return checks.result("the SEND landed in the posted receive and the immediate data arrived with its WRITE");
    }
}
