package org.rdmalab.app.packets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rdmalab.app.LoopbackLab;
import org.rdmalab.app.lab.LabViewModel;

/**
 * The Wire tab's counters after the loopback lab ran the seed's flow: which rows are shown with and
 * without "all", and how much each moved since the mark. A single thread stands in for JavaFX's.
 */
class CountersViewModelTest {

    @RegisterExtension
    final LoopbackLab loopback = new LoopbackLab();

    private LabViewModel lab;
    private CountersViewModel counters;

    @BeforeEach
    void start() {
        lab = loopback.lab();
        counters = loopback.onUi(() -> new CountersViewModel(lab, Runnable::run, loopback.ui()));
    }

    private List<CountersViewModel.Row> rows() {
        return loopback.onUi(() -> List.copyOf(counters.rows()));
    }

    private long value(List<CountersViewModel.Row> rows, String side, String name) {
        return rows.stream().filter(row -> row.side().equals(side) && row.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(side + " " + name + " in " + rows)).value();
    }

    @Test
    void zerosAreLeftOutUnlessAllAreAskedForAndTheMarkCountsFromTheValuesShown() {
        loopback.onUi(() -> {
            lab.apply(lab.defaultSetup().withGidIndex("3"));
            lab.runAllToEnd();
            return null;
        });
        loopback.await("both sides to finish", () -> lab.sides().stream().allMatch(side -> !side.busyProperty().get()
                && side.nextIndexProperty().get() == side.steps().size()));
        loopback.run(() -> counters.refresh());
        loopback.await("both sides' sent packets counted", () -> counters.rows().stream()
                .filter(row -> row.name().equals("sent_pkts")).count() == 2);
        List<CountersViewModel.Row> shown = rows();
        assertTrue(shown.stream().allMatch(row -> row.value() != 0), shown::toString);
        assertTrue(shown.stream().allMatch(row -> row.sinceMark() == null && !row.moved()), shown::toString);
        assertEquals(List.of("server", "client"), shown.stream().map(CountersViewModel.Row::side).distinct().toList());
        assertTrue(value(shown, "client", "sent_pkts") > 0);

        loopback.run(() -> counters.showAllProperty().set(true));
        List<CountersViewModel.Row> all = rows();
        assertTrue(all.size() > shown.size(), () -> all + " against " + shown);
        assertTrue(all.stream().anyMatch(row -> row.value() == 0), all::toString);
        assertTrue(all.containsAll(shown));

        loopback.onUi(() -> {
            counters.showAllProperty().set(false);
            counters.mark();
            return null;
        });
        List<CountersViewModel.Row> marked = rows();
        assertEquals(shown.size(), marked.size());
        assertTrue(marked.stream().allMatch(row -> Long.valueOf(0).equals(row.sinceMark()) && !row.moved()),
                marked::toString);
        assertEquals(value(shown, "client", "sent_pkts"), value(marked, "client", "sent_pkts"));
    }

    @Test
    void aRowHasMovedOnlyWhenItChangedSinceAMark() {
        assertTrue(new CountersViewModel.Row("client", "sent_pkts", 9, 3L).moved());
        assertTrue(new CountersViewModel.Row("client", "sent_pkts", 9, -1L).moved());
        assertFalse(new CountersViewModel.Row("client", "sent_pkts", 9, 0L).moved());
        assertFalse(new CountersViewModel.Row("client", "sent_pkts", 9, null).moved());
        assertNull(new CountersViewModel.Row("client", "sent_pkts", 9, null).sinceMark());
    }

    /** Nobody calls refresh here: the lab's events read the counters, and new sides read theirs. */
    @Test
    void theCountersFollowTheLabsEventsAndNewSidesStartUnmarked() {
        loopback.onUi(() -> {
            lab.apply(lab.defaultSetup().withGidIndex("3"));
            lab.runAllToEnd();
            return null;
        });
        loopback.await("both sides' sent packets counted after the flow's events", () -> counters.rows().stream()
                .filter(row -> row.name().equals("sent_pkts")).count() == 2);
        loopback.onUi(() -> {
            counters.mark();
            assertTrue(counters.rows().stream().allMatch(row -> row.sinceMark() != null), counters.rows()::toString);
            lab.apply(lab.defaultSetup().withGidIndex("3"));
            return null;
        });
        loopback.await("the new sides' counters (no device opened yet: none)", () -> counters.rows().isEmpty());
    }

    /**
     * While another tab is shown the lab's events do not read the counters (nothing changes in the
     * table), and showing them reads them once, with what the flow sent meanwhile.
     */
    @Test
    void hiddenCountersAreNotReadAndShowingThemReadsThemOnce() {
        loopback.run(() -> counters.shownProperty().set(false));
        loopback.run(() -> lab.apply(lab.defaultSetup().withGidIndex("3")));
        loopback.runToTheEnd();
        // The flow's last events were taken (the run is over) and asked for no read: still no rows.
        loopback.run(() -> { });
        assertEquals(List.of(), rows(), "not read while hidden");
        loopback.run(() -> counters.shownProperty().set(true));
        loopback.await("the counters read once shown", () -> counters.rows().stream()
                .filter(row -> row.name().equals("sent_pkts")).count() == 2);
        assertTrue(value(rows(), "client", "sent_pkts") > 0);
    }
}
