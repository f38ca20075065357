package org.rdmalab.softroce;

/**
 * The software device's port counters. The first group carries the names Linux rxe shows under
 * {@code /sys/class/infiniband/rxe0/ports/1/hw_counters} and counts the same events, each where rxe
 * increments it (named on each constant); rxe's {@code ack_deferred} and {@code link_downed} have
 * no counterpart here. The second group is this device's own, for packets it drops and faults it
 * injects.
 */
public enum Counter {
    /**
     * Packets sent (retransmissions and responses included), counted as they leave the device:
     * one the fault injector then loses counts, as a packet lost on the wire does on rxe
     * ({@code rxe_xmit_packet}).
     */
    SENT_PKTS("sent_pkts"),
    /** Packets received that passed the ICRC, address, QP and state checks ({@code rxe_rcv}). */
    RCVD_PKTS("rcvd_pkts"),
    /**
     * Responder, RC: request packets with a PSN before the expected one, one per packet
     * (re-ACKed, READ answered again, atomic replayed; rxe's {@code check_psn}).
     */
    DUPLICATE_REQUEST("duplicate_request"),
    /**
     * Responder, RC: PSN sequence NAKs sent, one per gap however many packets then arrive ahead
     * of the expected PSN (rxe's {@code check_psn}; UC counts nothing).
     */
    OUT_OF_SEQ_REQUEST("out_of_seq_request"),
    /** Requester: RNR NAKs received ({@code check_ack}). */
    RCVD_RNR_ERR("rcvd_rnr_err"),
    /** Responder: RNR NAKs sent (a SEND or WRITE_WITH_IMM found no receive posted). */
    SEND_RNR_ERR("send_rnr_err"),
    /**
     * Requester: PSN sequence NAKs received that acknowledge something new, that is whose PSN is
     * past the oldest unacknowledged one ({@code check_ack}); a NAK for exactly that PSN still
     * starts a retry but is not counted, as in rxe.
     */
    RCVD_SEQ_ERR("rcvd_seq_err"),
    /** Requester: go-back-N retries started (timer expiry, sequence NAK, a READ or atomic passed over). */
    COMPLETER_RETRY_ERR("completer_retry_err"),
    /** Requester: work requests failed with IBV_WC_RETRY_EXC_ERR. */
    RETRY_EXCEEDED_ERR("retry_exceeded_err"),
    /** Requester: work requests failed with IBV_WC_RNR_RETRY_EXC_ERR. */
    RETRY_RNR_EXCEEDED_ERR("retry_rnr_exceeded_err"),
    /**
     * Packets the device could not hand to the network: the socket failed with an error, or
     * {@value SoftTransport#BLOCKED_LIMIT} datagrams already waited for room in a full socket (rxe:
     * {@code rxe_xmit_packet} failed). A full socket alone is no error: see {@link #SEND_BLOCKED}.
     * Not error completions, which rxe does not count.
     */
    SEND_ERR("send_err"),
    /**
     * Requester: SEND and SEND_WITH_IMM work requests the completer retired, successful or not,
     * signaled or not; flushed ones do not count ({@code do_complete} in {@code rxe_comp.c}).
     * WRITEs, READs and atomics never count.
     */
    RDMA_SENDS("rdma_sends"),
    /**
     * Responder: receives completed successfully, by a SEND or a WRITE_WITH_IMM ({@code
     * do_complete} in {@code rxe_resp.c}). Plain WRITEs, READs and atomics, which consume no
     * receive, never count.
     */
    RDMA_RECVS("rdma_recvs"),
    /** Received datagrams dropped because their ICRC did not match. */
    RCVD_ICRC_ERR("rcvd_icrc_err"),
    /** Received datagrams dropped because they are not a well-formed RoCEv2 packet. */
    RCVD_MALFORMED("rcvd_malformed_pkts"),
    /** Received packets for a QP number the device does not have. */
    RCVD_UNKNOWN_QP("rcvd_unknown_qp"),
    /** Received packets from an address that is not the QP's connected peer. */
    RCVD_WRONG_PEER("rcvd_wrong_peer"),
    /** Received packets for a QP not in a state that accepts them (requests need RTR or RTS). */
    RCVD_QP_NOT_READY("rcvd_qp_not_ready"),
    /** Received responses that match no outstanding request (stale or unexpected). */
    RCVD_UNEXPECTED_RESPONSE("rcvd_unexpected_response"),
    /**
     * Times the socket's send buffer was found full: a datagram had to wait for room (it was kept
     * and sent later, not lost) and the QPs stopped producing until the socket took it.
     */
    SEND_BLOCKED("send_blocked"),
    /** Completions that found their CQ full (the QP went to ERR). */
    CQ_OVERFLOW("cq_overflow"),
    /** Fault injector: datagrams dropped. */
    FAULT_DROPPED("fault_dropped"),
    /** Fault injector: datagrams duplicated. */
    FAULT_DUPLICATED("fault_duplicated"),
    /** Fault injector: datagrams held back behind the next one. */
    FAULT_REORDERED("fault_reordered"),
    /** Fault injector: datagrams with a flipped bit. */
    FAULT_CORRUPTED("fault_corrupted");

    private final String counterName;

    Counter(String counterName) {
        this.counterName = counterName;
    }

    /** The name {@code Context.queryCounters()} uses. */
    public String counterName() {
        return counterName;
    }
}
