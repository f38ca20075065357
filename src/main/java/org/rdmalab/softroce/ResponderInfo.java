package org.rdmalab.softroce;

/**
 * The responder's receive side, as rxe keeps it in {@code qp->resp} ({@code struct rxe_resp_info}):
 * the expected PSN ({@code resp.psn}), the message sequence number ({@code resp.msn}), whether a
 * sequence NAK was sent ({@code resp.sent_psn_nak}), the message in progress and its receive
 * ({@code resp.opcode}, {@code resp.wqe}), the WRITE target ({@code resp.mr}, {@code resp.va},
 * {@code resp.resid}, {@code resp.length}) and UC's dropped message ({@code resp.drop_msg}). The
 * responder's parts ({@link Responder}, {@link ResponderExecution}, {@link ResponderResources},
 * {@link ResponderReplies}) share one, as rxe's functions share {@code qp->resp}.
 *
 * <p>Threads: the transport loop only.
 */
final class ResponderInfo {

    /** No message in progress. */
    static final int NONE = 0;
    /** A SEND message in progress (its FIRST arrived, its LAST not yet). */
    static final int IN_SEND = 1;
    /** A WRITE message in progress. */
    static final int IN_WRITE = 2;

    /** The PSN the next request must carry. */
    int expectedPsn;
    /** The message sequence number the AETHs carry. */
    int msn;
    /** A PSN sequence NAK went out for the current gap. */
    boolean sequenceNakSent;
    /** {@link #NONE}, {@link #IN_SEND} or {@link #IN_WRITE}. */
    int inProgress;
    /** The receive a SEND or WRITE_WITH_IMM is landing in, the receive queue's head; null when none. */
    RecvWqe currentRecv;
    /** How many bytes of the message are in {@link #currentRecv} so far. */
    int recvOffset;
    /** The region the WRITE in progress writes; null for a zero-length one. */
    SoftMemoryRegion writeRegion;
    /** Where its next byte goes. */
    long writeAddress;
    /** What is left of its RETH's DMA length. */
    long writeRemaining;
    /** Its RETH's DMA length. */
    long writeLength;
    /** UC: the message in progress was abandoned; drop until the next FIRST or ONLY. */
    boolean ucDropping;
}
