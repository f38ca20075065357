/**
 * The ladder: packets between QPs as arrows from one QP of a pair to the other, grouped into QP
 * pairs and messages (FIRST … LAST, ONLY), requests linked to the ACK or NAK that answered them
 * (the AETH's syndrome: ACK with its MSN, RNR NAK with its timer, the NAK codes), retransmissions
 * naming the packet they repeat, duplicates, reorders, bad ICRCs, drops with the fault that caused
 * them, and the waits before retransmissions (retransmit timeout, RNR wait, READ re-request) with
 * their durations. Live, a {@link org.rdmalab.ladder.WorkRequestTracker} ties a lab's work requests
 * to their messages, packets and completions, with each request's state (posted, in flight,
 * acknowledged, completed, flushed); from a capture ({@link org.rdmalab.ladder.CaptureLadder}) the messages are inferred and say so.
 * {@link org.rdmalab.ladder.LadderText} prints it ({@code pcap ladder}, {@code loopback --ladder}).
 *
 * <p>UI-free: it uses {@code wire}, {@code capture} and {@code verbs}'s vocabulary, never JavaFX,
 * a backend, the lab or the command line; the window draws it, the command line prints it.
 *
 * <p>Threads: a {@link org.rdmalab.ladder.Ladder} and what it hands out belong to one thread at a
 * time. Memory is bounded: a ladder keeps its newest N arrows (a capture's keeps all).
 */
package org.rdmalab.ladder;
