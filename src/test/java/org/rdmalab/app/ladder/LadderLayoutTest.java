package org.rdmalab.app.ladder;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.ladder.Arrow;
import org.rdmalab.ladder.Ladder;
import org.rdmalab.ladder.WirePacket;
import org.rdmalab.wire.Icrc;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacketEncoder;

/** Where the ladder's arrows go down the page: rows, time, compressed pauses, zoom's bounds, finding what is in view. */
class LadderLayoutTest {

    /** SEND_ONLY requests with PSN 0, 1, … sent at the given times (ns). */
    private static List<Arrow> sentAt(long... nanos) {
        Ladder ladder = Ladder.unbounded();
        List<Arrow> arrows = new ArrayList<>();
        for (int psn = 0; psn < nanos.length; psn++) {
            java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(128);
            RocePacketEncoder.encode(out, Opcode.RC_SEND_ONLY, 0x12, psn, true, false, null, null, null, null, 0,
                    new byte[4], 0, 4);
            int length = Icrc.appendCanonicalIpv4(0x0A000001, 0x0A000002, 49152, 4791, out, 0);
            byte[] bytes = new byte[length];
            out.get(0, bytes);
            arrows.add(ladder.add(WirePacket.captured(nanos[psn], "10.0.0.1:49152", "10.0.0.2:4791", bytes, true)));
        }
        return arrows;
    }

    private static final double ROW = LadderLayout.ROW;

    @Test
    void packetsCloserThanARowGetARowAndFartherOnesTheirTime() {
        LadderLayout layout = new LadderLayout();
        // 1 µs apart: a row; 4 ms apart: 200 px at one pixel per 20 µs.
        layout.build(sentAt(0, 1_000, 4_001_000), 1);
        assertEquals(LadderLayout.TOP, layout.y(0));
        assertEquals(LadderLayout.TOP + ROW, layout.y(1));
        assertEquals(LadderLayout.TOP + ROW + 200, layout.y(2), 1e-9);
        assertEquals(0, layout.pauses().size());
    }

    @Test
    void aPauseLongerThanTheCapIsCompressedAndKeepsItsLength() {
        LadderLayout layout = new LadderLayout();
        long atCap = (long) (LadderLayout.IDLE_CAP / LadderLayout.BASE_PIXELS_PER_NANO); // 4.8 ms: drawn as it is
        layout.build(sentAt(0, atCap, atCap + atCap + 20), 1);
        assertEquals(LadderLayout.TOP + LadderLayout.IDLE_CAP, layout.y(1), 1e-6);
        assertEquals(1, layout.pauses().size(), "20 ns past the cap: compressed");
        LadderLayout.Pause pause = layout.pauses().get(0);
        assertEquals(2, pause.before());
        assertEquals(atCap + 20, pause.nanos());
        assertEquals(layout.y(1) + LadderLayout.IDLE_DRAWN + ROW, layout.y(2), 1e-6);
        assertEquals(layout.y(1), pause.top(), 1e-6);
        assertEquals(layout.y(2), pause.bottom(), 1e-6);
    }

    @Test
    void zoomingStretchesTimeAndShrinksRowsOnlyBelowOne() {
        LadderLayout layout = new LadderLayout();
        List<Arrow> arrows = sentAt(0, 1_000, 201_000);
        layout.build(arrows, 4);
        assertEquals(ROW, layout.y(1) - layout.y(0), "zoomed in, close packets keep a whole row");
        assertEquals(200_000 * LadderLayout.BASE_PIXELS_PER_NANO * 4, layout.y(2) - layout.y(1), 1e-9);
        layout.build(arrows, 0.25);
        assertEquals(ROW / 4, layout.y(1) - layout.y(0), 1e-9);
        assertEquals(ROW / 4, layout.y(2) - layout.y(1), 1e-9, "200 µs is 2.5 px at zoom 1/4: a quarter row");
    }

    @Test
    void theZoomStopsAtItsBounds() {
        assertEquals(LadderLayout.MAX_ZOOM, LadderLayout.clampZoom(LadderLayout.MAX_ZOOM * 2));
        assertEquals(LadderLayout.MAX_ZOOM, LadderLayout.clampZoom(LadderLayout.MAX_ZOOM));
        assertEquals(LadderLayout.MIN_ZOOM, LadderLayout.clampZoom(LadderLayout.MIN_ZOOM / 2));
        assertEquals(1, LadderLayout.clampZoom(1));
        LadderLayout layout = new LadderLayout();
        layout.build(sentAt(0), 1e9);
        assertEquals(LadderLayout.MAX_ZOOM, layout.zoom());
    }

    @Test
    void whatIsInViewIsFoundAtBothEnds() {
        LadderLayout layout = new LadderLayout();
        List<Arrow> arrows = sentAt(0, 1_000, 2_000, 3_000);
        layout.build(arrows, 1);
        assertEquals(0, layout.firstAtOrBelow(0));
        assertEquals(0, layout.firstAtOrBelow(LadderLayout.TOP));
        assertEquals(1, layout.firstAtOrBelow(LadderLayout.TOP + 0.001));
        assertEquals(3, layout.firstAtOrBelow(LadderLayout.TOP + 3 * ROW));
        assertEquals(4, layout.firstAtOrBelow(LadderLayout.TOP + 3 * ROW + 0.001), "below the last: none");
        assertEquals(0, layout.positionOf(arrows.get(0).index()));
        assertEquals(3, layout.positionOf(arrows.get(3).index()));
        assertEquals(-1, layout.positionOf(arrows.get(3).index() + 1));
        assertEquals(-1, layout.positionOf(0));
        assertEquals(1, layout.nearest(LadderLayout.TOP + ROW + 5, 5));
        assertEquals(-1, layout.nearest(LadderLayout.TOP + ROW + 5.01, 5));
        assertEquals(LadderLayout.TOP + 3 * ROW + 2 * ROW, layout.height(), 1e-9);
    }
}
