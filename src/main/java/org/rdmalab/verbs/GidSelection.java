package org.rdmalab.verbs;

import java.util.List;
import java.util.Optional;

/**
 * Picks a GID index when the user does not: perftest's scoring (control-protocols.md): +100 for
 * an IPv4-mapped GID, +10 when not link-local, plus the RoCE version (v2 = 2, v1 = 1).
 */
public final class GidSelection {

    private GidSelection() {
    }

    /** The score of one entry. */
    public static int score(GidEntry entry) {
        int score = 0;
        if (entry.gid().isIpv4Mapped()) {
            score += 100;
        }
        if (!entry.gid().isLinkLocal()) {
            score += 10;
        }
        if (entry.type() == GidType.ROCE_V2) {
            score += 2;
        } else if (entry.type() == GidType.ROCE_V1) {
            score += 1;
        }
        return score;
    }

    /** The best entry of a GID table (the first of equals), if the table is not empty. */
    public static Optional<GidEntry> best(List<GidEntry> table) {
        GidEntry best = null;
        for (GidEntry entry : table) {
            if (best == null || score(entry) > score(best)) {
                best = entry;
            }
        }
        return Optional.ofNullable(best);
    }
}
