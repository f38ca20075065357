package org.rdmalab.lab.scenario;

import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/** WRITE then READ of {@code --size} random bytes, verified byte for byte (also under injected faults). */
final class BulkScenario implements Scenario {

    /** The size when none is given. */
    static final int DEFAULT_SIZE = 64 * 1024;

    @Override
    public String name() {
        return "bulk";
    }


    @Override
    public Plan plan(LoopbackSettings settings) {
        PeerSetup setup = PeerSetup.seed(settings.sizeOr(DEFAULT_SIZE));
        return Plan.connected(setup, setup);
    }

    @Override
    public ScenarioResult traffic(ScenarioRun run) throws VerbsException {
        Checks checks = run.checks();
        int size = run.settings().sizeOr(DEFAULT_SIZE);
        int mtu = run.settings().pathMtu().bytes();
        long seed = System.nanoTime();
        byte[] data = new byte[size];
        new Random(seed).nextBytes(data);
        // A message is one WR however long; allow for packet loss and go-back-N retries.
        Duration timeout = run.pollTimeout().plusMillis(size / 100).plusSeconds(30);

        PeerSetup setup = run.client().setup();
        Duration readTimeout = timeout.plus(readRecovery(run.settings().server().faults(), (size + mtu - 1) / mtu,
                setup.timeout()));
        ScenarioSide server = run.server();
        ScenarioSide client = run.client();
        org.rdmalab.control.ConnectionData remote = server.connectionData();
        int signaled = SendFlag.SIGNALED.value();

        client.fill(0, data, String.format("%d random bytes (java.util.Random seed %d)", size, seed));
        run.note(String.format("%d bytes at path_mtu %d: the WRITE goes out as %d packets (FIRST, MIDDLE..., LAST)",
                size, mtu, (size + mtu - 1) / mtu));
        client.postSend(SendWorkRequest.write(1, client.sge(), remote.addr(), remote.rkey(), signaled));
        Optional<WorkCompletion> write = client.poll(timeout);
        checks.completion(write, 1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, -1);
        checks.bytes(server.show(0, size, "after the RDMA WRITE"), data, "the server's buffer");

        client.fill(0, new byte[size], "zeros");
        run.note("the READ's responses come back one per path MTU, starting at the request's PSN");
        client.postSend(SendWorkRequest.read(2, client.sge(), remote.addr(), remote.rkey(), signaled));
        Optional<WorkCompletion> read = client.poll(readTimeout);
        checks.completion(read, 2, WcStatus.SUCCESS, WcOpcode.RDMA_READ, size);
        checks.bytes(client.show(0, size, "after the RDMA READ"), data, "the client's buffer");
        return checks.result(String.format("%d bytes written and read back intact", size));
    }

    /**
     * Extra time a READ may need under faults. As on rxe, a lost, corrupted or reordered READ
     * response leaves a gap: the responses after it are dropped and the rest is asked for again
     * only when the requester's retransmission timer fires, so each such fault costs about one
     * ACK timeout. Allows twice the number of faults the spec makes likely for {@code packets}
     * responses; nothing without faults.
     */
    static Duration readRecovery(String faults, int packets, int timeoutExponent) {
        double gapProbability = 0;
        if (faults != null) {
            for (String part : faults.split(",")) {
                String[] keyValue = part.split("=", 2);
                String key = keyValue[0].trim();
                if (keyValue.length == 2 && (key.equals("drop") || key.equals("reorder") || key.equals("corrupt"))) {
                    try {
                        gapProbability += Double.parseDouble(keyValue[1].trim());
                    } catch (NumberFormatException e) {
                        // the device refuses such a spec before any scenario runs
                    }
                }
            }
        }
        long ackTimeoutNanos = 4096L << timeoutExponent;
        return Duration.ofNanos(2 * (long) Math.ceil(packets * Math.min(1, gapProbability)) * ackTimeoutNanos);
    }
}
