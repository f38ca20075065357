package org.rdmalab.app.ladder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.rdmalab.ladder.Arrow;

/**
 * Where each arrow of a ladder goes down the page: time runs down at the zoom's pixels per
 * nanosecond, packets closer than a row apart still get a row (less when zoomed out), and a pause
 * longer than {@link #IDLE_CAP} pixels is compressed to {@link #IDLE_DRAWN} pixels and labelled
 * with its length. Built once per change of the arrows or the zoom (O(n), no allocation per
 * arrow); finding what is visible is a binary search. Pure: no JavaFX.
 */
public final class LadderLayout {

    /** Space between two packets close in time, at zoom 1 and above. */
    public static final double ROW = 30;
    /** Pixels per nanosecond at zoom 1: one pixel per 20 µs. */
    public static final double BASE_PIXELS_PER_NANO = 1.0 / 20_000;
    /** A pause drawn longer than this is compressed. */
    public static final double IDLE_CAP = 240;
    /** How long a compressed pause is drawn. */
    public static final double IDLE_DRAWN = 48;
    /** Room above the first arrow (the lines' heads). */
    public static final double TOP = 56;
    /** The zoom's bounds: 1/256 (a 64 MiB transfer on a few screens) to 4096 (a microsecond spread over a row). */
    public static final double MIN_ZOOM = 1.0 / 256;
    public static final double MAX_ZOOM = 4096;

    /**
     * A compressed pause.
     *
     * @param before the position of the arrow after the pause
     * @param top where the pause starts on the page
     * @param bottom where it ends (the arrow after it)
     * @param nanos how long it really was
     */
    public record Pause(int before, double top, double bottom, long nanos) {
    }

    private List<Arrow> arrows = List.of();
    private double[] y = new double[0];
    private final List<Pause> pauses = new ArrayList<>();
    private double zoom = 1;
    private double height = TOP;

    /** Lays {@code arrows} (oldest first) out at {@code zoom}. */
    public void build(List<Arrow> arrows, double zoom) {
        this.arrows = arrows;
        this.zoom = clampZoom(zoom);
        int n = arrows.size();
        if (y.length < n) {
            y = Arrays.copyOf(y, Math.max(n, y.length * 2));
        }
        pauses.clear();
        double pixelsPerNano = BASE_PIXELS_PER_NANO * this.zoom;
        double row = ROW * Math.min(1, this.zoom);
        double at = TOP;
        long previous = 0;
        for (int i = 0; i < n; i++) {
            long time = arrows.get(i).timeNanos();
            if (i > 0) {
                long pause = Math.max(0, time - previous);
                double drawn = pause * pixelsPerNano;
                if (drawn > IDLE_CAP) {
                    pauses.add(new Pause(i, at, at + IDLE_DRAWN + row, pause));
                    at += IDLE_DRAWN + row;
                } else {
                    at += Math.max(row, drawn);
                }
            }
            y[i] = at;
            previous = Math.max(previous, time);
        }
        height = at + ROW * 2;
    }

    /** {@code zoom} within the bounds. */
    public static double clampZoom(double zoom) {
        return Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, zoom));
    }

    public double zoom() {
        return zoom;
    }

    /** The page's height. */
    public double height() {
        return height;
    }

    public int size() {
        return arrows.size();
    }

    public Arrow arrow(int position) {
        return arrows.get(position);
    }

    /** Where arrow {@code position} leaves its sender. */
    public double y(int position) {
        return y[position];
    }

    /** The compressed pauses, top to bottom. */
    public List<Pause> pauses() {
        return pauses;
    }

    /** The first position whose arrow is at or below {@code top} ({@link #size()} when none is). */
    public int firstAtOrBelow(double top) {
        int low = 0;
        int high = arrows.size();
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (y[middle] < top) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    /** The position of the arrow with ladder index {@code index}, or -1 when it is not laid out. */
    public int positionOf(long index) {
        int low = 0;
        int high = arrows.size() - 1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            long at = arrows.get(middle).index();
            if (at < index) {
                low = middle + 1;
            } else if (at > index) {
                high = middle - 1;
            } else {
                return middle;
            }
        }
        return -1;
    }

    /** The position of the arrow nearest {@code pageY}, or -1 when there is none within {@code slack} pixels. */
    public int nearest(double pageY, double slack) {
        int below = firstAtOrBelow(pageY);
        int best = -1;
        double distance = slack;
        for (int position = Math.max(0, below - 1); position <= Math.min(arrows.size() - 1, below); position++) {
            double d = Math.abs(y[position] - pageY);
            if (d <= distance) {
                distance = d;
                best = position;
            }
        }
        return best;
    }
}
