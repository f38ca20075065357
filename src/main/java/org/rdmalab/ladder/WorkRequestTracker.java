package org.rdmalab.ladder;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.rdmalab.verbs.WrOpcode;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.Psn;

/**
 * The send work requests of a live lab tied to the wire and the CQ: each posted request
 * ({@link #posted}) is tied to the next message its QP starts on the {@link Ladder}
 * ({@link #seen}, in ladder order), collects that message's packets (retransmissions, a READ's
 * responses, the ACKs and NAKs that answered it), is acknowledged when an ACK covers its last PSN,
 * and completes with the status its completion carried ({@link #completed}).
 *
 * <p>RC sends a QP's messages in the order their requests were posted (IBA 9.5), so the n-th
 * message a requester starts carries its n-th request. A request flushed with
 * IBV_WC_WR_FLUSH_ERR may never have gone out: when the next message does not fit its opcode, it
 * is passed over. A QP reset ({@link #reset}) discards what it had not sent.
 *
 * <p>A packet may reach the ladder a moment before the window hears of its post: a message with no
 * request waiting is kept for a few batches of arrows for a post to claim it.
 *
 * <p>Memory is bounded: the newest {@code capacity} requests, each with its newest
 * {@code packetLimit} ladder indices.
 *
 * <p>Threads: one thread at a time (the window's JavaFX thread).
 */
public final class WorkRequestTracker {

    /** Batches of arrows a message with no request stays claimable for. */
    static final int UNCLAIMED_BATCHES = 4;

    /** One requester host: what it posted and no message carried yet, and what awaits an ACK. */
    private static final class Requester {
        final ArrayDeque<WorkRequest> untied = new ArrayDeque<>();
        final ArrayDeque<WorkRequest> unacknowledged = new ArrayDeque<>();
        /** Messages that started before a request was heard of, with their packets so far. */
        final ArrayDeque<WorkRequest> unclaimed = new ArrayDeque<>();
    }

    private final int capacity;
    private final int packetLimit;
    private final ArrayDeque<WorkRequest> requests = new ArrayDeque<>();
    private final Map<String, Requester> requesters = new HashMap<>();
    private final Map<String, ArrayDeque<WorkRequest>> awaitingCompletion = new HashMap<>();
    private final Map<WorkRequest, Long> unclaimedBatch = new java.util.IdentityHashMap<>();
    private long nextNumber = 1;
    private long lastIndex;
    private long batch;

    /**
     * @param capacity requests kept (the oldest are let go)
     * @param packetLimit ladder indices kept per request (a view keeps no more arrows than this)
     */
    public WorkRequestTracker(int capacity, int packetLimit) {
        if (capacity < 1 || packetLimit < 2) {
            throw new IllegalArgumentException("capacity " + capacity + ", packetLimit " + packetLimit);
        }
        this.capacity = capacity;
        this.packetLimit = packetLimit;
    }

    /**
     * {@code ibv_post_send} of one request returned 0: side {@code side} on {@code host} posted it
     * to its QP {@code qpn}.
     *
     * @param length the bytes of its scatter/gather list
     * @param signaled IBV_SEND_SIGNALED (or the QP's sq_sig_all)
     */
    public WorkRequest posted(String side, String host, int qpn, long wrId, WrOpcode opcode, long length,
                              boolean signaled) {
        WorkRequest request = new WorkRequest(nextNumber++, side, host, qpn, wrId, opcode, length, signaled);
        requests.add(request);
        awaitingCompletion.computeIfAbsent(completionKey(side, qpn, wrId), key -> new ArrayDeque<>()).add(request);
        Requester requester = requester(host);
        WorkRequest early = requester.untied.isEmpty() ? claimable(requester, opcode) : null;
        if (early != null) {
            takeOver(requester, early, request);
        } else {
            requester.untied.add(request);
        }
        while (requests.size() > capacity) {
            forget(requests.poll());
        }
        return request;
    }

    /**
     * The arrows the ladder added since the last call, oldest first (one batch); an arrow already
     * seen is passed over.
     */
    public void seen(Iterable<Arrow> arrows) {
        batch++;
        for (Arrow arrow : arrows) {
            if (arrow != null && arrow.index() > lastIndex) {
                lastIndex = arrow.index();
                seen(arrow);
            }
        }
        for (Requester requester : requesters.values()) {
            for (Iterator<WorkRequest> it = requester.unclaimed.iterator(); it.hasNext(); ) {
                WorkRequest collector = it.next();
                if (batch - unclaimedBatch.get(collector) >= UNCLAIMED_BATCHES) {
                    it.remove();
                    unclaimedBatch.remove(collector);
                    collector.message.workRequest = null;
                    requester.unacknowledged.remove(collector);
                }
            }
        }
    }

    private void seen(Arrow arrow) {
        Message message = arrow.message();
        if (arrow.request()) {
            Requester requester = requester(WirePacket.host(arrow.source()));
            if (message != null && message.firstIndex() == arrow.index() && message.workRequest == null) {
                start(requester, message);
            }
            WorkRequest request = message == null ? null : message.workRequest;
            if (request != null) {
                request.addPacket(arrow.index(), packetLimit);
                request.advance(WorkRequest.State.IN_FLIGHT);
                if (arrow.retransmission()) {
                    request.addResent(new WorkRequest.Resent(arrow.psn(), arrow.index(), arrow.gap()));
                }
            }
            return;
        }
        Requester requester = requester(WirePacket.host(arrow.destination()));
        WorkRequest request = message == null ? null : message.workRequest;
        if (request != null) {
            request.addPacket(arrow.index(), packetLimit);
        }
        boolean acknowledges = !arrow.dropped() && (arrow.opcode().isReadResponse()
                || arrow.opcode().isAcknowledge() && arrow.hasAeth() && Aeth.isAck(arrow.aethSyndrome()));
        if (acknowledges) {
            acknowledge(requester, arrow);
        }
    }

    /** A message starts: the next request its requester posted carries it. */
    private void start(Requester requester, Message message) {
        while (!requester.untied.isEmpty()) {
            WorkRequest next = requester.untied.peek();
            if (fits(next.opcode(), message)) {
                requester.untied.poll();
                tie(requester, next, message);
                return;
            }
            if (next.state == WorkRequest.State.FLUSHED) {
                requester.untied.poll(); // flushed before it went out
                continue;
            }
            return; // not this requester's post (another QP on the host): leave both
        }
        WorkRequest collector = new WorkRequest(0, null, "", -1, -1, null, 0, false);
        tie(requester, collector, message);
        requester.unclaimed.add(collector);
        unclaimedBatch.put(collector, batch);
    }

    private void tie(Requester requester, WorkRequest request, Message message) {
        request.message = message;
        message.workRequest = request;
        request.advance(WorkRequest.State.IN_FLIGHT);
        requester.unacknowledged.add(request);
    }

    /** The oldest unclaimed message a new post of {@code opcode} may claim, or null. */
    private static WorkRequest claimable(Requester requester, WrOpcode opcode) {
        for (WorkRequest collector : requester.unclaimed) {
            return fits(opcode, collector.message) ? collector : null;
        }
        return null;
    }

    /** {@code request}, just posted, carries the message {@code collector} gathered. */
    private void takeOver(Requester requester, WorkRequest collector, WorkRequest request) {
        requester.unclaimed.remove(collector);
        unclaimedBatch.remove(collector);
        request.message = collector.message;
        collector.message.workRequest = request;
        request.advance(collector.state);
        for (int i = 0; i < collector.packetCount; i++) {
            request.addPacket(collector.packets[i], packetLimit);
        }
        collector.resent.forEach(request::addResent);
        request.resentForgotten += collector.resentForgotten;
        ArrayDeque<WorkRequest> waiting = new ArrayDeque<>();
        for (WorkRequest each : requester.unacknowledged) {
            waiting.add(each == collector ? request : each);
        }
        requester.unacknowledged.clear();
        requester.unacknowledged.addAll(waiting);
    }

    /** An ACK or a READ response with PSN p acknowledges, in order, each message whose last PSN is at most p. */
    private void acknowledge(Requester requester, Arrow arrow) {
        for (Iterator<WorkRequest> it = requester.unacknowledged.iterator(); it.hasNext(); ) {
            WorkRequest request = it.next();
            Message message = request.message;
            if (message.pair() != arrow.pair()) {
                continue;
            }
            if (request.failed()) {
                it.remove(); // a NAK or the retry limit ended it, or a flush: it will never be acknowledged
                continue;
            }
            if (!message.complete() || Psn.diff(arrow.psn(), message.lastPsn()) < 0) {
                return; // not (all) sent yet, or beyond this ACK: so are the ones after it
            }
            request.advance(WorkRequest.State.ACKNOWLEDGED);
            if (arrow.opcode().isAcknowledge()) {
                request.addPacket(arrow.index(), packetLimit);
            }
            it.remove();
        }
    }

    /**
     * A completion of side {@code side}'s QP {@code qpn} for {@code wrId} with verbs.h's status
     * name: the oldest such request not completed yet completes. Returns it, or empty (a receive's
     * completion, or a request the tracker let go).
     */
    public Optional<WorkRequest> completed(String side, int qpn, long wrId, String status) {
        ArrayDeque<WorkRequest> waiting = awaitingCompletion.get(completionKey(side, qpn, wrId));
        WorkRequest request = waiting == null ? null : waiting.poll();
        if (request == null) {
            return Optional.empty();
        }
        if (waiting.isEmpty()) {
            awaitingCompletion.remove(completionKey(side, qpn, wrId));
        }
        request.status = status;
        request.advance("IBV_WC_WR_FLUSH_ERR".equals(status) ? WorkRequest.State.FLUSHED
                : WorkRequest.State.COMPLETED);
        return Optional.of(request);
    }

    /**
     * Side {@code side}'s QP went to RESET: the requests it had not sent are gone (without a
     * completion), and none of its requests awaits an ACK any more.
     */
    public void reset(String side) {
        for (Requester requester : requesters.values()) {
            requester.untied.removeIf(request -> side.equals(request.side()));
            requester.unacknowledged.removeIf(request -> side.equals(request.side()));
        }
    }

    /** The request whose packets include ladder index {@code index}, or empty. */
    public Optional<WorkRequest> ofPacket(long index) {
        for (Iterator<WorkRequest> back = requests.descendingIterator(); back.hasNext(); ) {
            WorkRequest request = back.next();
            if (request.hasPacket(index)) {
                return Optional.of(request);
            }
        }
        return Optional.empty();
    }

    /** The requests kept, oldest first. */
    public List<WorkRequest> requests() {
        return new ArrayList<>(requests);
    }

    /** How many requests are kept. */
    public int size() {
        return requests.size();
    }

    private void forget(WorkRequest request) {
        Requester requester = requesters.get(request.host());
        if (requester != null) {
            requester.untied.remove(request);
            requester.unacknowledged.remove(request);
        }
        ArrayDeque<WorkRequest> waiting = awaitingCompletion.get(completionKey(request.side(), request.qpn(),
                request.wrId()));
        if (waiting != null) {
            waiting.remove(request);
            if (waiting.isEmpty()) {
                awaitingCompletion.remove(completionKey(request.side(), request.qpn(), request.wrId()));
            }
        }
    }

    private Requester requester(String host) {
        return requesters.computeIfAbsent(host, key -> new Requester());
    }

    private static String completionKey(String side, int qpn, long wrId) {
        return side + "/" + qpn + "/" + wrId;
    }

    /** True when a message that starts with {@code message}'s opcode carries a request of {@code opcode}. */
    static boolean fits(WrOpcode opcode, Message message) {
        org.rdmalab.wire.Opcode first = message.firstOpcode();
        return switch (opcode) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> first.isWrite();
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> first.isSend();
            case RDMA_READ -> first.isReadRequest();
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> first.isAtomic();
            default -> false;
        };
    }
}
