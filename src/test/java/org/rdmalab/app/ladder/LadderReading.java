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
