package org.rdmalab.lab.exercise;

import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.Role;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.QpState;

/**
 * What an {@link Attempt} learnt from each side's events so far: its QP's state and history, the
 * RNR NAKs since its latest post, the request PSNs its device sent, the packets of its latest RDMA
 * WRITE; and its buffer, read from its MR when a check asks. Not thread-safe: the attempt guards it.
 */
public final class Observations {

    /** What the latest packet event of a side was, as the packet checks see it. */
    enum PacketKind {
        /** Nothing a check looks for. */
        OTHER,
        /** The side sent an ACKNOWLEDGE whose AETH is an RNR NAK. */
        RNR_NAK_SENT,
        /** An ACKNOWLEDGE the side sent was lost to an injected fault. */
        ACK_DROPPED_BY_FAULT,
        /** The side sent a request packet with a PSN it had sent before on the same QP pair. */
        REQUEST_RESENT,
        /** The side sent the last packet of an RDMA WRITE message (or its only one). */
        WRITE_MESSAGE_SENT
    }

    /**
     * Where a counter check reads a side's counters: how far each rose since its device opened,
     * or empty when they cannot be read now (no device, a reset under the read).
     */
    @FunctionalInterface
    public interface CounterSource {
        /** The counters of {@code side}'s device since it opened, by name. */
        Optional<Map<String, Long>> sinceOpen(Role side);

        /** Reads them from the side's session at the moment a check asks ({@link LabSession#countersSinceOpen}). */
        static CounterSource live(Function<Role, LabSession> sessions) {
            return side -> {
                LabSession session = sessions.apply(side);
                if (session == null || session.resources().context().isEmpty()) {
                    return Optional.empty();
                }
                try {
                    return Optional.of(session.countersSinceOpen());
                } catch (org.rdmalab.verbs.VerbsException | RuntimeException unreadable) {
                    // Closed under the read (a reset), or the device's counters cannot be read: nothing to compare.
                    return Optional.empty();
                }
            };
        }
    }

    /** One side's facts. */
    public static final class SideFacts {
        private final Role role;
        private final Function<Role, LabSession> sessions;
        private final CounterSource counters;
        private QpState state;
        private long sequence;
        private long createdAt = -1;
        private long errorToResetAt = -1;
        private int rnrNaksSincePost;
        private final Set<Long> sentRequests = new HashSet<>();
        private int writePackets;
        private int lastWritePackets;
        private PacketKind lastPacket = PacketKind.OTHER;
        /** The errno of the latest failed verb call since the side's latest finished step. */
        private Errno pendingErrno;
        /** The errno of the step that finished with the latest event (null: none, or no verb failed). */
        private Errno stepErrno;

        SideFacts(Role role, Function<Role, LabSession> sessions, CounterSource counters) {
            this.role = role;
            this.sessions = sessions;
            this.counters = counters;
        }

        /** The QP's state as its events told (null before a QP exists). */
        public QpState state() {
            return state;
        }

        /** True when the QP moved from ERR to RESET since it was created. */
        public boolean recoveredFromError() {
            return errorToResetAt > createdAt;
        }

        /** RNR NAKs that reached this side since its latest successful {@code ibv_post_send}. */
        public int rnrNaksSincePost() {
            return rnrNaksSincePost;
        }

        /** The errno a verb of the step just finished failed with, or null. */
        public Errno stepErrno() {
            return stepErrno;
        }

        /**
         * How far the device's counter {@code name} rose since it opened; empty without a device,
         * when it has no such counter, or when it cannot be read.
         */
        public Optional<Long> counterSinceOpen(String name) {
            return counters.sinceOpen(role).map(all -> all.get(name));
        }

        PacketKind lastPacket() {
            return lastPacket;
        }

        /** Packets of the side's latest complete RDMA WRITE message. */
        int lastWritePackets() {
            return lastWritePackets;
        }

        /** {@code length} bytes of the side's MR at {@code offset}; empty without an MR or outside it. */
        public Optional<byte[]> buffer(int offset, int length) {
            LabSession session = sessions.apply(role);
            if (session == null) {
                return Optional.empty();
            }
            try {
                Optional<MemoryRegion> mr = session.resources().memoryRegion();
                if (mr.isEmpty() || (long) offset + length > mr.get().length()) {
                    return Optional.empty();
                }
                return Optional.of(mr.get().read(offset, length));
            } catch (RuntimeException released) {
                // The MR was deregistered while it was read (a reset): nothing to read.
                return Optional.empty();
            }
        }

        void take(LabEvent event) {
            sequence++;
            lastPacket = PacketKind.OTHER;
            stepErrno = null;
            if (event instanceof LabEvent.StepFinished) {
                stepErrno = pendingErrno;
                pendingErrno = null;
            } else if (event instanceof LabEvent.VerbCall call && !call.ok()) {
                pendingErrno = call.errno();
            }
            if (event instanceof LabEvent.StepFinished finished && finished.result().ok()
                    && finished.step().id().equals("create-qp")) {
                state = QpState.RESET;
                createdAt = sequence;
                sentRequests.clear();
                writePackets = 0;
            } else if (event instanceof LabEvent.QpStateChange change && change.side() == LabEvent.Side.LOCAL) {
                if (change.from() == QpState.ERR && change.to() == QpState.RESET) {
                    errorToResetAt = sequence;
                }
                if (change.to() == QpState.RESET) {
                    // A QP back in RESET starts its PSNs over: what it sends next is not a retransmission.
                    sentRequests.clear();
                }
                state = change.to();
            } else if (event instanceof LabEvent.VerbCall call && call.ok() && call.verb().equals("ibv_post_send")) {
                rnrNaksSincePost = 0;
            } else if (event instanceof LabEvent.Packet packet) {
                packet(packet.packet());
            }
        }

        private void packet(PacketEvent packet) {
            String opcode = packet.opcode();
            boolean acknowledge = opcode.endsWith("ACKNOWLEDGE");
            boolean response = acknowledge || opcode.contains("READ_RESPONSE");
            boolean rnrNak = acknowledge && packet.detail().contains("AETH RNR-NAK");
            switch (packet.direction()) {
                case RECEIVED -> {
                    if (rnrNak) {
                        rnrNaksSincePost++;
                    }
                }
                case DROPPED -> {
                    if (acknowledge && packet.faulted()) {
                        lastPacket = PacketKind.ACK_DROPPED_BY_FAULT;
                    }
                }
                case SENT -> {
                    if (rnrNak) {
                        lastPacket = PacketKind.RNR_NAK_SENT;
                    } else if (!response && !opcode.equals("?")) {
                        sent(packet, opcode);
                    }
                }
            }
        }

        private void sent(PacketEvent packet, String opcode) {
            long key = (long) packet.destQp() << 24 | (packet.psn() & 0xffffff);
            boolean again = !sentRequests.add(key);
            if (opcode.contains("RDMA_WRITE")) {
                if (opcode.contains("FIRST") || opcode.contains("ONLY")) {
                    writePackets = 0;
                }
                writePackets++;
                if (opcode.contains("LAST") || opcode.contains("ONLY")) {
                    lastWritePackets = writePackets;
                    lastPacket = PacketKind.WRITE_MESSAGE_SENT;
                }
            }
            if (again) {
                lastPacket = PacketKind.REQUEST_RESENT;
            }
        }
    }

    private final Map<Role, SideFacts> sides = new EnumMap<>(Role.class);

    /** Facts about the sides; a side {@code sessions} gives no session for has no buffer to read. */
    Observations(Function<Role, LabSession> sessions, CounterSource counters) {
        for (Role role : Role.values()) {
            sides.put(role, new SideFacts(role, sessions, counters));
        }
    }

    /** The facts of {@code side}. */
    public SideFacts of(Role side) {
        return sides.get(side);
    }

    void take(Role side, LabEvent event) {
        sides.get(side).take(event);
    }
}
