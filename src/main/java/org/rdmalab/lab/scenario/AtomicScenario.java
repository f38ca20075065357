package org.rdmalab.lab.scenario;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;

/** FETCH_ADD and CMP_SWP on an 8-byte word of the server's buffer, old values checked. */
final class AtomicScenario implements Scenario {

    static final long INITIAL = 100;
    static final long ADD = 5;
    static final long SWAP = 42;

    @Override
    public String name() {
        return "atomic";
    }


    @Override
    public Plan plan(LoopbackSettings settings) {
        int access = PeerSetup.SEED_ACCESS | AccessFlag.REMOTE_ATOMIC.value();
        return Plan.connected(PeerSetup.seed(8).withMrAccess(access).withQpAccess(access),
                PeerSetup.seed(8).withQpAccess(access));
    }

    @Override
    public ScenarioResult traffic(ScenarioRun run) throws VerbsException {
        Checks checks = run.checks();
        ScenarioSide server = run.server();
        ScenarioSide client = run.client();
        org.rdmalab.control.ConnectionData remote = server.connectionData();
        int signaled = SendFlag.SIGNALED.value();
        checks.that(remote.addr() % 8 == 0, String.format("the word at 0x%x is 8-byte aligned", remote.addr()),
                String.format("the server's buffer at 0x%x is not 8-byte aligned; atomics need that", remote.addr()));
        run.note("atomics need IBV_ACCESS_REMOTE_ATOMIC on the MR and the QP; the word is in host byte order"
                + " (little-endian), the wire carries it big-endian");

        server.fill(0, word(INITIAL), "the 64-bit value " + INITIAL);
        client.postSend(SendWorkRequest.fetchAdd(1, client.sge(), remote.addr(), remote.rkey(), ADD,
                signaled));
        checks.completion(client.poll(run.pollTimeout()), 1, WcStatus.SUCCESS, WcOpcode.FETCH_ADD, 8);
        expectWord(checks, client, "old value returned by FETCH_ADD", INITIAL);
        expectWord(checks, server, "the server's word after FETCH_ADD " + ADD, INITIAL + ADD);

        client.postSend(SendWorkRequest.compareSwap(2, client.sge(), remote.addr(), remote.rkey(),
                INITIAL + ADD, SWAP, signaled));
        checks.completion(client.poll(run.pollTimeout()), 2, WcStatus.SUCCESS, WcOpcode.COMP_SWAP, 8);
        expectWord(checks, client, "old value returned by CMP_SWP (compare matched)", INITIAL + ADD);
        expectWord(checks, server, "the server's word after the swap", SWAP);

        run.note("a CMP_SWP whose compare value does not match leaves the word alone but still returns it");
        client.postSend(SendWorkRequest.compareSwap(3, client.sge(), remote.addr(), remote.rkey(),
                INITIAL + ADD, 7, signaled));
        checks.completion(client.poll(run.pollTimeout()), 3, WcStatus.SUCCESS, WcOpcode.COMP_SWAP, 8);
        expectWord(checks, client, "old value returned by CMP_SWP (compare did not match)", SWAP);
        expectWord(checks, server, "the server's word, unchanged", SWAP);
        return checks.result(String.format("FETCH_ADD returned %d, CMP_SWP returned %d then %d; the word ends at %d",
                INITIAL, INITIAL + ADD, SWAP, SWAP));
    }

    private static void expectWord(Checks checks, ScenarioSide peer, String what, long expected) {
        long value = ByteBuffer.wrap(peer.show(0, 8, what)).order(ByteOrder.LITTLE_ENDIAN).getLong();
        checks.that(value == expected, what + ": " + value, what + ": expected " + expected + ", got " + value);
    }

    static byte[] word(long value) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
    }
}
