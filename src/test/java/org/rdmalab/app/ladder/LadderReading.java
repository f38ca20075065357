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

    /** Every arrow the chart draws from the top of the ladder to its end, scrolling a view at a time. */
    static List<LadderChart.DrawnArrow> everyArrow(LadderChart chart) {
        Map<Long, LadderChart.DrawnArrow> seen = new TreeMap<>();
        FxWait.onFx(() -> {
            chart.followProperty().set(false);
            chart.topProperty().set(0);
            return null;
        });
        for (int page = 0; page < 10_000; page++) {
            org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
            LadderChart.Visible visible = FxWait.onFx(chart::visible);
            visible.arrows().forEach(arrow -> seen.putIfAbsent(arrow.index(), arrow));
            if (seen.size() >= visible.total()) {
                break;
            }
            double before = FxWait.onFx(() -> chart.topProperty().get());
            FxWait.onFx(() -> {
                chart.topProperty().set(before + chart.getHeight() * 0.8);
                return null;
            });
            org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
            if (FxWait.onFx(() -> chart.topProperty().get()) == before) {
                visible = FxWait.onFx(chart::visible);
                visible.arrows().forEach(arrow -> seen.putIfAbsent(arrow.index(), arrow));
                break;
            }
        }
        return new ArrayList<>(seen.values());
    }
}
