package org.rdmalab.ladder;

import java.util.Map;

/**
 * What a ladder counted.
 *
 * @param packets RC packets seen
 * @param messages messages seen
 * @param inferred true when no message was tied to a work request (a capture)
 * @param retransmissions request packets that repeat a PSN their QP already sent (READ re-requests included)
 * @param duplicates copies the network made
 * @param reordered requests that came after a higher PSN of their QP
 * @param icrcBad packets whose ICRC does not match
 * @param dropped packets a device dropped
 * @param naks NAKs by kind ("NAK PSN sequence error", "RNR NAK", ...), sorted by name
 * @param pairs QP pairs seen
 * @param other packets left out: not RC, or not RoCE at all
 */
public record Summary(long packets, long messages, boolean inferred, long retransmissions, long duplicates,
                      long reordered, long icrcBad, long dropped, Map<String, Integer> naks, int pairs, long other) {

    public Summary {
        naks = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(naks));
    }

    /** Every NAK, RNR NAKs included. */
    public long nakCount() {
        return naks.values().stream().mapToLong(Integer::longValue).sum();
    }
}
