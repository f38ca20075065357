package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a flow's two sessions to their end in a test, as the two sides of one lab do. */
public final class TwoSides {

    private TwoSides() {
    }

    /**
     * Runs {@code server} on a thread of its own and {@code client} on the caller's, both to their
     * end; fails, naming the side and its failed step, when either did not finish or the server
     * took longer than {@code limit} after the client ended.
     */
    public static void runToEnd(LabSession server, LabSession client, Duration limit) throws Exception {
        CompletableFuture<Boolean> serverRun = CompletableFuture.supplyAsync(() -> {
            server.runToEnd();
            return server.finished();
        });
        client.runToEnd();
        assertTrue(serverRun.get(limit.toMillis(), TimeUnit.MILLISECONDS), () -> "server: " + failure(server));
        assertTrue(client.finished(), () -> "client: " + failure(client));
    }

    /** {@code session}'s first failed step, as its title and result's summary, or "none". */
    public static String failure(LabSession session) {
        return session.steps().stream().filter(step -> step.status() == Step.Status.FAILED)
                .map(step -> step.title() + ": " + step.result().orElseThrow().summary()).findFirst().orElse("none");
    }
}
