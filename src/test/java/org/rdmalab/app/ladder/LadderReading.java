package org.rdmalab.app.ladder;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.rdmalab.app.FxWait;

/** Reads a ladder chart as a student scrolls it, for the ladder's window tests. */
final class LadderReading {

    private LadderReading() {
    }

    /**
     * Waits until the ladder holds every packet heard and its views show them all: packets wait to be
     * put in time order, and while they stream the chart and the summary are drawn again at most every
     * {@link LadderViewModel#REDRAW_MILLIS}, so right after a transfer's last completion the chart may
     * still show fewer packets than the summary will.
     */
    static void awaitDrawn(LadderViewModel ladder) {
        FxWait.waitFor("the ladder drawn up to its last packet", 10, () -> FxWait.onFx(() -> ladder.pendingCount() == 0
                && ladder.summaryProperty().get().startsWith(ladder.summaryPacketCount() + " ")));
    }

    /**
     * Every arrow the chart draws from the top of the ladder to its end, scrolling a view at a time.
     * Each view is laid out and drawn at once ({@code layout()} runs the pass the next pulse would), so
     * reading a long ladder costs its drawing, not a pulse wait per view.
     */
    static List<LadderChart.DrawnArrow> everyArrow(LadderChart chart) {
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        return FxWait.onFx(() -> {
            Map<Long, LadderChart.DrawnArrow> seen = new TreeMap<>();
            chart.followProperty().set(false);
            chart.topProperty().set(0);
            chart.layout();
            for (int page = 0; page < 10_000; page++) {
                LadderChart.Visible visible = chart.visible();
                visible.arrows().forEach(arrow -> seen.putIfAbsent(arrow.index(), arrow));
                if (seen.size() >= visible.total()) {
                    break;
                }
                double before = chart.topProperty().get();
                chart.topProperty().set(before + chart.getHeight() * 0.8);
                chart.layout();
                if (chart.topProperty().get() == before) {
                    chart.visible().arrows().forEach(arrow -> seen.putIfAbsent(arrow.index(), arrow));
                    break;
                }
            }
            return new ArrayList<>(seen.values());
        });
    }
}
