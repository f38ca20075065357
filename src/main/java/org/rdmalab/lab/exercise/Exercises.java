package org.rdmalab.lab.exercise;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.exercise.Check.After;
import org.rdmalab.lab.exercise.Check.CompletionOf;
import org.rdmalab.lab.exercise.Check.Holds;
import org.rdmalab.lab.exercise.Check.PacketSeen;
import org.rdmalab.lab.exercise.Check.QpIn;
import org.rdmalab.lab.exercise.Check.ReadBack;
import org.rdmalab.lab.exercise.Check.Wire;
import org.rdmalab.lab.exercise.Start.Edit;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;

/**
 * The built-in exercises, in the order a lab would take them: they follow the seed's program
 * (the loopback lab's server on 127.0.0.1 and client on 127.0.0.2, each with its soft0) and grow
 * from it. Most are written here, their words {@code <name>.title}, {@code .teaches}, {@code .goal}
 * and {@code .hint.1}… of the exercises' bundle; {@code path-mtu}, {@code drop-ack} and
 * {@code recv-too-small} are exercise files in the jar ({@code builtin/NAME.yaml} beside these
 * classes), read by {@link ExerciseFile} as an instructor's are, words and all.
 */
public final class Exercises {

    /** The seed's message, as the server's buffer shows it after the WRITE (its NUL not included). */
    static final String HELLO = Flows.MESSAGE;
    /** The GID index of soft0's ::ffff:127.0.0.x RoCE v2 entry: the one RoCE v2 over IPv4 routes by. */
    static final String ROCE_V2_GID = "3";
    /** Where the FETCH_AND_ADD exercise keeps each side's counter (8-byte aligned, after the seed's message). */
    static final int COUNTER_OFFSET = 16;
    /** What the client WRITEs once its QP is back from ERR. */
    static final String RECOVERED = "Recovered";
    /** The RDMA WRITE of the path MTU exercise, in bytes. */
    static final int LONG_WRITE = 4096;

    private static final List<Exercise> ALL = List.of(
            exercise("gid-for-roce", 3, Start.of(Flows.SeedFlow.WRITE_ONLY, "-1"),
                    new QpIn(Role.SERVER, QpState.RTS),
                    new QpIn(Role.CLIENT, QpState.RTS),
                    CompletionOf.success(Role.CLIENT, WcOpcode.RDMA_WRITE, Flows.MESSAGE_SIZE),
                    Holds.text(Role.SERVER, 0, HELLO)),
            exercise("access-error", 3, Start.of(Flows.SeedFlow.WRITE_ONLY, ROCE_V2_GID),
                    CompletionOf.error(Role.CLIENT, WcStatus.REM_ACCESS_ERR),
                    new After(0, CompletionOf.success(Role.CLIENT, WcOpcode.RDMA_WRITE)),
                    new After(0, Holds.text(Role.SERVER, 0, HELLO))),
            exercise("rnr-nak", 3, Start.of(Flows.SeedFlow.WRITE_ONLY, ROCE_V2_GID),
                    PacketSeen.of(Role.SERVER, Wire.RNR_NAK_SENT),
                    CompletionOf.error(Role.CLIENT, WcStatus.RNR_RETRY_EXC_ERR),
                    new After(1, CompletionOf.success(Role.SERVER, WcOpcode.RECV)),
                    new After(1, CompletionOf.success(Role.CLIENT, WcOpcode.SEND).withoutRnrNak())),
            exercise("qp-recover", 3, Start.of(Flows.SeedFlow.WRITE_ONLY, ROCE_V2_GID),
                    new Check.Recovered(Role.CLIENT),
                    new After(0, CompletionOf.success(Role.CLIENT, WcOpcode.RDMA_WRITE)),
                    new After(0, Holds.text(Role.SERVER, 0, RECOVERED))),
            exercise("read-back", 3, Start.of(Flows.SeedFlow.RC_EXAMPLE, ROCE_V2_GID),
                    CompletionOf.success(Role.CLIENT, WcOpcode.RDMA_WRITE),
                    new After(0, new ReadBack(Role.CLIENT, HELLO))),
            exercise("fetch-add", 3, Start.of(Flows.SeedFlow.WRITE_ONLY, ROCE_V2_GID,
                            Edit.both("reg-mr", "size", Integer.toString(COUNTER_OFFSET + Long.BYTES))),
                    CompletionOf.success(Role.CLIENT, WcOpcode.FETCH_ADD),
                    CompletionOf.success(Role.SERVER, WcOpcode.FETCH_ADD),
                    Holds.word(Role.SERVER, COUNTER_OFFSET, 3),
                    Holds.word(Role.CLIENT, COUNTER_OFFSET, 3)),
            exercise("psn-mismatch", 3, Start.of(Flows.SeedFlow.WRITE_ONLY, ROCE_V2_GID,
                            new Edit(Role.SERVER, "modify-rtr", "rq_psn", "0x10")),
                    CompletionOf.success(Role.CLIENT, WcOpcode.RDMA_WRITE),
                    Holds.text(Role.SERVER, 0, HELLO)),
            ExerciseFile.builtIn("path-mtu"),
            ExerciseFile.builtIn("drop-ack"),
            ExerciseFile.builtIn("recv-too-small"),
            exercise("write-imm", 3, Start.of(Flows.SeedFlow.WRITE_ONLY, ROCE_V2_GID),
                    CompletionOf.success(Role.SERVER, WcOpcode.RECV_RDMA_WITH_IMM).withImm(0x1234),
                    CompletionOf.success(Role.CLIENT, WcOpcode.RDMA_WRITE),
                    Holds.text(Role.SERVER, 0, "Ping")));

    private Exercises() {
    }

    private static Exercise exercise(String name, int hints, Start start, Check... checks) {
        List<Phrase> said = new ArrayList<>();
        for (int i = 1; i <= hints; i++) {
            said.add(ExercisePhrase.of(name + ".hint." + i));
        }
        return new Exercise(name, ExercisePhrase.of(name + ".title"), ExercisePhrase.of(name + ".teaches"),
                ExercisePhrase.of(name + ".goal"), said, start, List.of(checks));
    }

    /** Every built-in exercise, in the order a lab takes them. */
    public static List<Exercise> all() {
        return ALL;
    }

    /** The built-in exercise called {@code name}. */
    public static Optional<Exercise> named(String name) {
        return ALL.stream().filter(exercise -> exercise.name().equals(name)).findFirst();
    }
}
