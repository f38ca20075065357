package org.rdmalab.softroce;

/**
 * The software device's port counters. The first group carries the names Linux rxe shows under
 * {@code /sys/class/infiniband/rxe0/ports/1/hw_counters} and counts the same events; the second
 * group is this device's own, for packets it drops and faults it injects.
 */
public enum Counter {
    /** Packets sent (retransmissions and responses included). */
    SENT_PKTS("sent_pkts"),
    /** Packets received that passed the ICRC, address and QP checks. */
    RCVD_PKTS("rcvd_pkts"),
    /** Responder: request packets with a PSN already seen (re-ACKed, READ re-answered, atomic replayed). */
    DUPLICATE_REQUEST("duplicate_request"),
    /** Responder: request packets ahead of the expected PSN (a gap). */
    OUT_OF_SEQ_REQUEST("out_of_seq_request"),
    /** Requester: RNR NAKs received. */
    RCVD_RNR_ERR("rcvd_rnr_err"),
    /** Responder: RNR NAKs sent (a SEND found no receive posted). */
    SEND_RNR_ERR("send_rnr_err"),
    /** Requester: PSN sequence error NAKs received. */
    RCVD_SEQ_ERR("rcvd_seq_err"),
    /** Requester: go-back-N retries started (timer expiry, sequence NAK, missing response). */
    COMPLETER_RETRY_ERR("completer_retry_err"),
    /** Requester: work requests failed with IBV_WC_RETRY_EXC_ERR. */
    RETRY_EXCEEDED_ERR("retry_exceeded_err"),
    /** Requester: work requests failed with IBV_WC_RNR_RETRY_EXC_ERR. */
    RETRY_RNR_EXCEEDED_ERR("retry_rnr_exceeded_err"),
    /** Send or receive work requests completed with an error other than a flush. */
    SEND_ERR("send_err"),
    /** Messages sent (SEND, WRITE, READ, atomic requests started). */
    RDMA_SENDS("rdma_sends"),
    /** Messages received and executed by the responder. */
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
    /**
     * Datagrams lost on the way out: the network refused them with an error, or they found
     * {@value SoftTransport#BLOCKED_LIMIT} datagrams already waiting for a full socket.
     */
    SEND_DROPPED("send_dropped_pkts"),
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
