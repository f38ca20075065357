package org.rdmalab.lab.exercise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.lab.Role;

/**
 * Counter checks read through a counter source that a window fills off its JavaFX thread: an
 * event alone reads only what the source holds, and {@link Attempt#recheckCounters} checks the
 * counters handed in after the latest event, within the check's bounds and its order.
 */
class AttemptCountersTest {

    /** The docs' example file with {@code checks} in place of its own. */
    private static Exercise exercise(String checks) throws Exception {
        String doc = ExerciseDocTest.docExample();
        return ExerciseFile.parse("counters.yaml", doc.substring(0, doc.indexOf("checks:")) + "checks:\n" + checks,
                false);
    }

    private final Map<Role, Map<String, Long>> counters = new EnumMap<>(Role.class);

    private Attempt attempt(Exercise exercise) {
        return new Attempt(exercise, role -> null, role -> Optional.ofNullable(counters.get(role)));
    }

    private static LabEvent event() {
        return LabEvent.VerbCall.ok("ibv_poll_cq", "cq", "0");
    }

    @Test
    void aCounterCheckIsMetByTheCountersHandedInWithinItsBoundsOnItsSideOnly() throws Exception {
        Attempt attempt = attempt(exercise("  - {kind: counter, side: client, counter: sent_pkts, at_least: 2, at_most: 5}\n"));
        AtomicInteger heard = new AtomicInteger();
        attempt.onProgress(a -> heard.incrementAndGet());
        assertTrue(attempt.wantsCounters(Role.CLIENT));
        assertFalse(attempt.wantsCounters(Role.SERVER), "no counter check on the server: nothing to read there");
        attempt.recheckCounters(Role.CLIENT);
        assertEquals(0, attempt.metCount(), "before any event there is nothing to check");

        attempt.observe(Role.CLIENT, event());
        assertEquals(0, attempt.metCount(), "no counters handed in yet");
        counters.put(Role.CLIENT, Map.of("sent_pkts", 1L));
        attempt.recheckCounters(Role.CLIENT);
        assertEquals(0, attempt.metCount(), "1 is below at_least 2");
        counters.put(Role.CLIENT, Map.of("sent_pkts", 6L));
        attempt.recheckCounters(Role.CLIENT);
        assertEquals(0, attempt.metCount(), "6 is above at_most 5");
        counters.put(Role.SERVER, Map.of("sent_pkts", 3L));
        attempt.recheckCounters(Role.SERVER);
        assertEquals(0, attempt.metCount(), "the server's counters do not meet the client's check");
        counters.put(Role.CLIENT, Map.of("rcvd_pkts", 3L));
        attempt.recheckCounters(Role.CLIENT);
        assertEquals(0, attempt.metCount(), "another counter does not meet it");
        assertEquals(0, heard.get());

        counters.put(Role.CLIENT, Map.of("sent_pkts", 2L));
        attempt.recheckCounters(Role.CLIENT);
        assertEquals(List.of(true), attempt.statuses().stream().map(Attempt.Status::met).toList(), "2 is at_least");
        assertEquals(1, attempt.statuses().get(0).metAt(), "met as of the latest event, the first");
        assertEquals(1, heard.get(), "the listeners hear of it");
        assertFalse(attempt.wantsCounters(Role.CLIENT), "once met, its counters are not read any more");
        assertTrue(attempt.done());
    }

    @Test
    void theUpperBoundItselfMeetsItAndAnEventMeetsItWithoutARecheck() throws Exception {
        Attempt attempt = attempt(exercise("  - {kind: counter, side: client, counter: sent_pkts, at_least: 2, at_most: 5}\n"));
        counters.put(Role.CLIENT, Map.of("sent_pkts", 5L));
        attempt.observe(Role.SERVER, event());
        assertEquals(0, attempt.metCount(), "an event of the other side does not read the client's counters");
        attempt.observe(Role.CLIENT, event());
        assertEquals(1, attempt.metCount(), "an event of its side reads what the source holds: 5 is at_most");
    }

    @Test
    void aCounterCheckAfterAnotherWaitsForItWhateverTheCounters() throws Exception {
        Attempt attempt = attempt(exercise("""
                  - {kind: qp_state, side: server, state: IBV_QPS_RTS}
                  - {kind: counter, side: client, counter: sent_pkts, at_least: 1, after: 1}
                """));
        counters.put(Role.CLIENT, Map.of("sent_pkts", 4L));
        attempt.observe(Role.CLIENT, event());
        attempt.recheckCounters(Role.CLIENT);
        assertEquals(List.of(false, false), attempt.statuses().stream().map(Attempt.Status::met).toList(),
                "the counter check waits for the first");
        assertTrue(attempt.wantsCounters(Role.CLIENT), "and its counters are still wanted");
    }
}
