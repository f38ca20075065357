package org.rdmalab.app.ladder;

import java.util.ArrayList;
import java.util.List;
import org.rdmalab.ladder.Arrow;

/**
 * The arrows a ladder view shows, oldest first, with random access: the newest {@code capacity}
 * (live), or all of them (a capture). An arrow is added once; a later report of the same packet
 * (its arrival) changes the arrow in place. JavaFX thread only.
 */
final class ArrowTrack {

    private final int capacity;
    private final ArrayList<Arrow> arrows = new ArrayList<>();
    private int start;
    private long lastIndex;
    private long forgotten;

    ArrowTrack(int capacity) {
        this.capacity = capacity;
    }

    /** A track that keeps every arrow. */
    static ArrowTrack all(List<Arrow> arrows) {
        ArrowTrack track = new ArrowTrack(Integer.MAX_VALUE);
        arrows.forEach(track::add);
        return track;
    }

    /** Adds {@code arrow} unless it is already here (an older or the same index); true when added. */
    boolean add(Arrow arrow) {
        if (arrow == null || arrow.index() <= lastIndex) {
            return false;
        }
        lastIndex = arrow.index();
        arrows.add(arrow);
        if (size() > capacity) {
            start++;
            forgotten++;
            if (start > 4096 && start > arrows.size() / 2) {
                arrows.subList(0, start).clear();
                start = 0;
            }
        }
        return true;
    }

    int size() {
        return arrows.size() - start;
    }

    Arrow get(int position) {
        return arrows.get(start + position);
    }

    /** Arrows let go to keep the newest {@code capacity}. */
    long forgotten() {
        return forgotten;
    }

    int capacity() {
        return capacity;
    }

    void clear() {
        arrows.clear();
        start = 0;
        lastIndex = 0;
        forgotten = 0;
    }
}
