package org.rdmalab.lab.exercise;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.lab.Role;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;

/**
 * One thing an exercise checks, on what the devices did: never on which buttons were pressed. A
 * check is open until a {@link Moment} of the lab meets it; then it stays met (an {@link Attempt}
 * remembers when). Each says what it checks in a sentence of both languages.
 */
public sealed interface Check {

    /** What is checked, in one sentence ("the client's QP is in IBV_QPS_RTS"). */
    Phrase said();

    /** True when {@code moment} (an event of one side and the lab as it is after it) meets the check. */
    boolean metBy(Moment moment);

    /**
     * One event of the lab and what the attempt knows after it.
     *
     * @param side the side the event came from
     * @param event the event
     * @param seen what each side did so far
     */
    record Moment(Role side, LabEvent event, Observations seen) {
    }

    /** The side's name as a phrase of both languages. */
    static Phrase side(Role role) {
        return ExercisePhrase.of(role == Role.SERVER ? "side.server" : "side.client");
    }

    /**
     * The side's QP is in {@code state} (as its QP state events tell, as the diagram shows it).
     */
    record QpIn(Role side, QpState state) implements Check {
        public QpIn {
            Objects.requireNonNull(side, "side");
            Objects.requireNonNull(state, "state");
        }

        @Override
        public Phrase said() {
            return ExercisePhrase.of("check.qpIn", Check.side(side), state.cName());
        }

        @Override
        public boolean metBy(Moment moment) {
            return moment.seen().of(side).state() == state;
        }
    }

    /**
     * The side polled a completion with {@code status} and, for a successful one, {@code opcode}
     * (null: any), {@code byteLength} (-1: any) and {@code imm} (null: any). An error completion's
     * opcode and length mean nothing in verbs, so a check on one names only its status. With
     * {@code noRnrNak}, no RNR NAK may have reached the side since its latest {@code ibv_post_send}.
     */
    record CompletionOf(Role side, WcStatus status, WcOpcode opcode, long byteLength, Integer imm,
                        boolean noRnrNak) implements Check {
        public CompletionOf {
            Objects.requireNonNull(side, "side");
            Objects.requireNonNull(status, "status");
            if (status != WcStatus.SUCCESS && (opcode != null || byteLength >= 0 || imm != null)) {
                throw new IllegalArgumentException("an error completion's opcode, byte_len and imm_data mean nothing;"
                        + " check its status alone");
            }
        }

        /** A successful completion of {@code opcode}. */
        public static CompletionOf success(Role side, WcOpcode opcode) {
            return new CompletionOf(side, WcStatus.SUCCESS, opcode, -1, null, false);
        }

        /** A successful completion of {@code opcode} that moved {@code bytes} bytes. */
        public static CompletionOf success(Role side, WcOpcode opcode, long bytes) {
            return new CompletionOf(side, WcStatus.SUCCESS, opcode, bytes, null, false);
        }

        /** A completion with the error {@code status}. */
        public static CompletionOf error(Role side, WcStatus status) {
            return new CompletionOf(side, status, null, -1, null, false);
        }

        /** The same check with the immediate data it must carry. */
        public CompletionOf withImm(int value) {
            return new CompletionOf(side, status, opcode, byteLength, value, noRnrNak);
        }

        /** The same check, met only when no RNR NAK came back since the side's latest post. */
        public CompletionOf withoutRnrNak() {
            return new CompletionOf(side, status, opcode, byteLength, imm, true);
        }

        @Override
        public Phrase said() {
            StringBuilder what = new StringBuilder(status.cName());
            if (opcode != null) {
                what.append(' ').append(opcode.cName());
            }
            if (byteLength >= 0) {
                what.append(", byte_len ").append(byteLength);
            }
            if (imm != null) {
                what.append(String.format(", imm_data 0x%x", imm));
            }
            return ExercisePhrase.of(noRnrNak ? "check.completionNoRnr" : "check.completion", Check.side(side),
                    what.toString());
        }

        @Override
        public boolean metBy(Moment moment) {
            if (moment.side() != side || !(moment.event() instanceof LabEvent.Completion completion)) {
                return false;
            }
            var wc = completion.completion();
            return wc.status() == status
                    && (opcode == null || wc.opcode() == opcode)
                    && (byteLength < 0 || Integer.toUnsignedLong(wc.byteLength()) == byteLength)
                    && (imm == null || wc.immData() == imm)
                    && (!noRnrNak || moment.seen().of(side).rnrNaksSincePost() == 0);
        }
    }

    /**
     * The side's buffer (its MR) holds {@code bytes} at {@code offset}, read when an event of either
     * side arrives.
     *
     * @param shown how the bytes are said ("HelloWorld", "the 64-bit word 3")
     */
    record Holds(Role side, int offset, byte[] bytes, Phrase shown) implements Check {
        public Holds {
            Objects.requireNonNull(side, "side");
            Objects.requireNonNull(shown, "shown");
            if (offset < 0 || bytes.length == 0) {
                throw new IllegalArgumentException("a buffer check needs an offset of 0 or more and some bytes");
            }
            bytes = bytes.clone();
        }

        /** The text's bytes (UTF-8, no terminating NUL) at {@code offset}. */
        public static Holds text(Role side, int offset, String text) {
            return new Holds(side, offset, text.getBytes(StandardCharsets.UTF_8), Phrase.literal("\"" + text + "\""));
        }

        /**
         * The 64-bit word {@code value} at {@code offset}, in the byte order the host reads an
         * atomic's result in (little-endian on x86 and soft0).
         */
        public static Holds word(Role side, int offset, long value) {
            byte[] word = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
            return new Holds(side, offset, word, ExercisePhrase.of("check.word", Long.toString(value)));
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        @Override
        public Phrase said() {
            return ExercisePhrase.of("check.holds", Check.side(side), shown, Integer.toString(offset));
        }

        @Override
        public boolean metBy(Moment moment) {
            return moment.seen().of(side).buffer(offset, bytes.length).map(read -> Arrays.equals(read, bytes))
                    .orElse(false);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Holds that && side == that.side && offset == that.offset
                    && Arrays.equals(bytes, that.bytes) && shown.equals(that.shown);
        }

        @Override
        public int hashCode() {
            return Objects.hash(side, offset, Arrays.hashCode(bytes), shown);
        }
    }

    /** An RDMA READ of the side completed and brought bytes that start with {@code prefix}. */
    record ReadBack(Role side, String prefix) implements Check {
        public ReadBack {
            Objects.requireNonNull(side, "side");
            if (prefix == null || prefix.isEmpty()) {
                throw new IllegalArgumentException("a READ check needs the text it must bring back");
            }
        }

        @Override
        public Phrase said() {
            return ExercisePhrase.of("check.readBack", Check.side(side), "\"" + prefix + "\"");
        }

        @Override
        public boolean metBy(Moment moment) {
            if (moment.side() != side || !(moment.event() instanceof LabEvent.RemoteBuffer remote)
                    || !remote.source().equals("RDMA READ")) {
                return false;
            }
            byte[] want = prefix.getBytes(StandardCharsets.UTF_8);
            byte[] got = remote.bytes();
            return got.length >= want.length && Arrays.equals(Arrays.copyOf(got, want.length), want);
        }
    }

    /** What a packet check looks for on the wire (software devices report their packets). */
    enum Wire {
        /** The side sent an RNR NAK: a receive was missing when a SEND (or WRITE with immediate) arrived. */
        RNR_NAK_SENT,
        /** An ACK the side sent was dropped by a fault (the Faults tab's one-shot "Drop the next ACK"). */
        ACK_DROPPED,
        /** The side sent a request packet again with a PSN it had sent before: a retransmission. */
        REQUEST_RETRANSMITTED,
        /** One RDMA WRITE message of the side crossed in exactly {@code count} packets. */
        WRITE_IN_PACKETS
    }

    /**
     * A packet (or, for {@link Wire#WRITE_IN_PACKETS}, a message of {@code count} packets) of the
     * side's device.
     */
    record PacketSeen(Role side, Wire what, int count) implements Check {
        public PacketSeen {
            Objects.requireNonNull(side, "side");
            Objects.requireNonNull(what, "what");
            if (what == Wire.WRITE_IN_PACKETS ? count < 1 : count != 0) {
                throw new IllegalArgumentException("only a WRITE's packet count takes a count");
            }
        }

        /** The packet {@code what} of the side. */
        public static PacketSeen of(Role side, Wire what) {
            return new PacketSeen(side, what, 0);
        }

        @Override
        public Phrase said() {
            return switch (what) {
                case RNR_NAK_SENT -> ExercisePhrase.of("check.rnrNak", Check.side(side));
                case ACK_DROPPED -> ExercisePhrase.of("check.ackDropped", Check.side(side));
                case REQUEST_RETRANSMITTED -> ExercisePhrase.of("check.retransmitted", Check.side(side));
                case WRITE_IN_PACKETS -> ExercisePhrase.of("check.writePackets", Check.side(side), Integer.toString(count));
            };
        }

        @Override
        public boolean metBy(Moment moment) {
            if (moment.side() != side || !(moment.event() instanceof LabEvent.Packet)) {
                return false;
            }
            Observations.SideFacts facts = moment.seen().of(side);
            return switch (what) {
                case RNR_NAK_SENT -> facts.lastPacket() == Observations.PacketKind.RNR_NAK_SENT;
                case ACK_DROPPED -> facts.lastPacket() == Observations.PacketKind.ACK_DROPPED_BY_FAULT;
                case REQUEST_RETRANSMITTED -> facts.lastPacket() == Observations.PacketKind.REQUEST_RESENT;
                case WRITE_IN_PACKETS -> facts.lastPacket() == Observations.PacketKind.WRITE_MESSAGE_SENT
                        && facts.lastWritePackets() == count;
            };
        }
    }

    /**
     * The side's QP came back from IBV_QPS_ERR: moved to IBV_QPS_RESET and on to IBV_QPS_RTS again,
     * the same QP (no QP was created in between).
     */
    record Recovered(Role side) implements Check {
        public Recovered {
            Objects.requireNonNull(side, "side");
        }

        @Override
        public Phrase said() {
            return ExercisePhrase.of("check.recovered", Check.side(side));
        }

        @Override
        public boolean metBy(Moment moment) {
            Observations.SideFacts facts = moment.seen().of(side);
            return facts.state() == QpState.RTS && facts.recoveredFromError();
        }
    }

    /**
     * {@code check}, met only by a moment after the check at {@code earlier} (an index into the
     * exercise's checks, before this one) was met: "then fix the access flags".
     */
    record After(int earlier, Check check) implements Check {
        public After {
            Objects.requireNonNull(check, "check");
            if (earlier < 0) {
                throw new IllegalArgumentException("earlier: an index of a check before this one");
            }
        }

        @Override
        public Phrase said() {
            return ExercisePhrase.of("check.after", Integer.toString(earlier + 1), check.said());
        }

        @Override
        public boolean metBy(Moment moment) {
            return check.metBy(moment);
        }
    }

    /**
     * The port counters a {@link CounterRises} check may name: those Linux rxe shows under
     * {@code /sys/class/infiniband/rxe0/ports/1/hw_counters}, and soft0's own for what it drops and
     * the faults it injects.
     */
    List<String> COUNTERS = List.of("sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request",
            "rcvd_rnr_err", "send_rnr_err", "rcvd_seq_err", "completer_retry_err", "retry_exceeded_err",
            "retry_rnr_exceeded_err", "send_err", "rdma_sends", "rdma_recvs", "ack_deferred", "link_downed",
            "rcvd_icrc_err", "rcvd_malformed_pkts", "rcvd_unknown_qp", "rcvd_wrong_peer", "rcvd_qp_not_ready",
            "rcvd_unexpected_response", "send_blocked", "cq_overflow", "fault_dropped", "fault_duplicated",
            "fault_reordered", "fault_corrupted");

    /**
     * The side's port counter {@code counter} rose by {@code atLeast} to {@code atMost} since its
     * device opened ({@link org.rdmalab.lab.LabSession#countersSinceOpen}), read when an event of
     * the side arrives. A device without that counter never meets it.
     *
     * @param atMost the most it may have risen, or {@link Long#MAX_VALUE} for no bound
     */
    record CounterRises(Role side, String counter, long atLeast, long atMost) implements Check {
        public CounterRises {
            Objects.requireNonNull(side, "side");
            Objects.requireNonNull(counter, "counter");
            if (atLeast < 0 || atMost < atLeast) {
                throw new IllegalArgumentException("a counter check needs 0 <= at_least <= at_most");
            }
        }

        /** The counter rose by {@code atLeast} or more. */
        public static CounterRises atLeast(Role side, String counter, long atLeast) {
            return new CounterRises(side, counter, atLeast, Long.MAX_VALUE);
        }

        @Override
        public Phrase said() {
            if (atMost == Long.MAX_VALUE) {
                return ExercisePhrase.of("check.counterAtLeast", Check.side(side), counter, Long.toString(atLeast));
            }
            if (atMost == atLeast) {
                return ExercisePhrase.of("check.counterExactly", Check.side(side), counter, Long.toString(atLeast));
            }
            return ExercisePhrase.of("check.counterBetween", Check.side(side), counter, Long.toString(atLeast),
                    Long.toString(atMost));
        }

        @Override
        public boolean metBy(Moment moment) {
            if (moment.side() != side) {
                return false;
            }
            return moment.seen().of(side).counterSinceOpen(counter).map(rise -> rise >= atLeast && rise <= atMost)
                    .orElse(false);
        }
    }

    /**
     * The side ran the step {@code step} (its id, "modify-rtr") and it succeeded, or failed; with
     * {@code errno}, failed because a verb of the step returned that errno (RTR refused with EINVAL).
     */
    record StepEnded(Role side, String step, boolean ok, Errno errno) implements Check {
        public StepEnded {
            Objects.requireNonNull(side, "side");
            Objects.requireNonNull(step, "step");
            if (ok && errno != null) {
                throw new IllegalArgumentException("a step that succeeded has no errno");
            }
        }

        @Override
        public Phrase said() {
            if (ok) {
                return ExercisePhrase.of("check.stepOk", Check.side(side), step);
            }
            return errno == null ? ExercisePhrase.of("check.stepFailed", Check.side(side), step)
                    : ExercisePhrase.of("check.stepFailedWith", Check.side(side), step, errno.name());
        }

        @Override
        public boolean metBy(Moment moment) {
            if (moment.side() != side || !(moment.event() instanceof LabEvent.StepFinished finished)
                    || !finished.step().id().equals(step) || finished.result().ok() != ok) {
                return false;
            }
            return errno == null || moment.seen().of(side).stepErrno() == errno;
        }
    }
}
