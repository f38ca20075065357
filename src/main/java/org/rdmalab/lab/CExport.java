package org.rdmalab.lab;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.WrOpcode;

/**
 * A lab session as one self-contained C program that does the same with libibverbs: resources,
 * TCP connection, the seed's 34-byte exchange and one-byte syncs, INIT → RTR → RTS with the
 * attributes and masks chosen in the lab, the seed flow's posts, polls and prints, extra work
 * requests, and the teardown. Both roles are in the file, chosen by the command line as the seed
 * does: {@code prog <local_ip> <ib_dev> [<server_ip>]} (server without {@code server_ip}).
 *
 * <p>Each step's body is that step's {@link Step#cCode} with the session's values, so the C code
 * the lab shows is the code the program runs; the export adds the declarations each step needs
 * and a check of its result. The exporting session's role runs its own steps; the other role
 * runs the counterpart flow from {@link Flows} with the same values for the steps both share
 * (device, port, GID, PD, CQ, MR, QP, the three modifies, syncs). Extra work requests are posted
 * by the exporting role after the seed's steps; for each one that consumes a receive (SEND,
 * SEND_WITH_IMM, RDMA_WRITE_WITH_IMM) the other role posts a receive first, and a one-byte sync
 * ('X') separates them.
 *
 * <p>The seed's exchange carries no PSN: a step's 'peer' / 'own' PSN is written as the number the
 * lab used (0 for the seed). The lab and pingpong protocols are exported as the seed's exchange,
 * which the file's first comment says. ibv_rc_pingpong's own flow (its ping-pong loop) is not
 * exported: rdma-core ships that program.
 */
public final class CExport {

    /**
     * One extra work request, posted by the exporting side after the seed's steps.
     *
     * @param opcode what to post
     * @param localOffset where in the local buffer the SGE starts
     * @param length SGE length in bytes (atomics: 8)
     * @param remoteOffset offset into the peer's buffer (RDMA and atomics)
     * @param data bytes copied to the local buffer at {@code localOffset} before posting; empty for none
     * @param imm immediate data (WITH_IMM opcodes), host order
     * @param signaled IBV_SEND_SIGNALED
     * @param compareAdd atomics: the compare (CMP_AND_SWP) or add (FETCH_AND_ADD) value
     * @param swap CMP_AND_SWP: the new value
     */
    public record ExtraWork(WrOpcode opcode, int localOffset, int length, int remoteOffset, byte[] data, int imm,
                            boolean signaled, long compareAdd, long swap) {

        public ExtraWork {
            Objects.requireNonNull(opcode, "opcode");
            data = data == null ? new byte[0] : data.clone();
            if (localOffset < 0 || length < 0 || remoteOffset < 0) {
                throw new IllegalArgumentException("offsets and length must not be negative");
            }
            if (opcode.isAtomic() && (length != 8 || remoteOffset % 8 != 0)) {
                throw new IllegalArgumentException(opcode.cName() + " works on one 8-byte word at an 8-byte aligned "
                        + "remote offset (length " + length + ", remote offset " + remoteOffset + ")");
            }
        }

        /** True when the peer must have a receive posted (SEND, SEND_WITH_IMM, RDMA_WRITE_WITH_IMM). */
        public boolean consumesReceive() {
            return opcode == WrOpcode.SEND || opcode == WrOpcode.SEND_WITH_IMM
                    || opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
        }

        @Override
        public byte[] data() {
            return data.clone();
        }
    }

    private static final Set<String> ROLE_SPECIFIC_PARAMETERS = Set.of("reg-mr/initial");

    private CExport() {
    }

    /**
     * The C program that reproduces {@code session} (its steps with their current values) and then
     * posts {@code extras}.
     *
     * @throws IllegalArgumentException for a flow the export does not cover (ibv_rc_pingpong's),
     *     or extra work that does not fit the registered buffer
     */
    public static String of(LabSession session, List<ExtraWork> extras) {
        List<Step> own = session.steps();
        if (own.stream().anyMatch(step -> step instanceof PingPongStep)) {
            throw new IllegalArgumentException("the C export covers the seed's flows; ibv_rc_pingpong's ping-pong loop "
                    + "is not exported (rdma-core ships that program as ibv_rc_pingpong)");
        }
        Role role = session.role();
        Role other = role == Role.SERVER ? Role.CLIENT : Role.SERVER;
        Flows.SeedFlow flow = own.stream().anyMatch(step -> step.id().equals("post-send") || step.id().equals("post-recv"))
                ? Flows.SeedFlow.RC_EXAMPLE : Flows.SeedFlow.WRITE_ONLY;
        String protocol = session.link().protocol();
        List<Step> counterpart = Flows.seed(other, flow, settings(own), protocol.equals("lab"));
        copyShared(own, counterpart);
        int size = find(own, "reg-mr").parameter("size").asInt();
        for (ExtraWork extra : extras) {
            if ((long) extra.localOffset() + extra.length() > size
                    || (long) extra.localOffset() + extra.data.length > size) {
                throw new IllegalArgumentException("extra " + extra.opcode().cName() + " at local offset "
                        + extra.localOffset() + " does not fit the " + size + "-byte buffer");
            }
        }
        Writer writer = new Writer(session, flow, extras, find(own, "create-qp").parameter("sq_sig_all").asInt() == 1,
                pollTimeout(own));
        String serverBody = writer.body(role == Role.SERVER ? own : counterpart, role == Role.SERVER);
        String clientBody = writer.body(role == Role.CLIENT ? own : counterpart, role == Role.CLIENT);
        return writer.header(protocol, role) + CProgramText.prelude(writer.needsBestGid(own) || writer.needsBestGid(counterpart))
                + "\n/* The server's steps. */\nstatic int run_server(struct resources *res, struct config_t config)\n{\n"
                + serverBody + "    return 0;\n}\n"
                + "\n/* The client's steps. */\nstatic int run_client(struct resources *res, struct config_t config)\n{\n"
                + clientBody + "    return 0;\n}\n" + CProgramText.MAIN;
    }

    private static Step find(List<Step> steps, String id) {
        return steps.stream().filter(step -> step.id().equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("the session has no '" + id + "' step to export"));
    }

    private static long pollTimeout(List<Step> steps) {
        return steps.stream().filter(step -> step instanceof DataSteps.PollCq).findFirst()
                .map(step -> step.parameter("timeout_ms").asLong()).orElse(LabSession.SEED_POLL_TIMEOUT.toMillis());
    }

    private static Flows.Settings settings(List<Step> steps) {
        Step query = find(steps, "query-port");
        return new Flows.Settings(find(steps, "open-device").parameter("ib_dev").value(),
                query.parameter("ib_port").asInt(), query.parameter("gid_idx").value(),
                find(steps, "reg-mr").parameter("size").asInt(),
                Mtu.ofBytes(Integer.parseInt(find(steps, "modify-rtr").parameter("path_mtu").value())),
                pollTimeout(steps));
    }

    /** Gives the counterpart's steps the values chosen for the same steps in the session. */
    private static void copyShared(List<Step> from, List<Step> to) {
        for (Step target : to) {
            for (Step source : from) {
                if (!source.id().equals(target.id())) {
                    continue;
                }
                for (Parameter parameter : target.parameters()) {
                    if (ROLE_SPECIFIC_PARAMETERS.contains(target.id() + "/" + parameter.name())) {
                        continue;
                    }
                    source.parameters().stream().filter(p -> p.name().equals(parameter.name())).findFirst()
                            .ifPresent(p -> parameter.set(p.value()));
                }
            }
        }
    }

    /** Writes the step blocks of one role. */
    private static final class Writer {

        private final LabSession session;
        private final Flows.SeedFlow flow;
        private final List<ExtraWork> extras;
        private final boolean signalAll;
        private final long pollTimeout;

        Writer(LabSession session, Flows.SeedFlow flow, List<ExtraWork> extras, boolean signalAll, long pollTimeout) {
            this.session = session;
            this.flow = flow;
            this.extras = List.copyOf(extras);
            this.signalAll = signalAll;
            this.pollTimeout = pollTimeout;
        }

        boolean needsBestGid(List<Step> steps) {
            return steps.stream().anyMatch(step -> step.cCode(session).contains("best_gid_index("));
        }

        String header(String protocol, Role role) {
            StringBuilder text = new StringBuilder("/*\n * RDMA Lab export: the seed's ").append(flow.label())
                    .append(" flow as one C program, from a ").append(role.name().toLowerCase(Locale.ROOT))
                    .append(" session.\n");
            if (protocol.equals("lab") || protocol.equals("pingpong")) {
                text.append(" *\n * The session used the ").append(protocol).append(" control protocol; this program")
                        .append(" speaks the seed's\n * exchange instead (the 34-byte cm_con_data_t and one-byte syncs),")
                        .append(" so run both sides from\n * this file.\n");
            }
            text.append("""
                     *
                     * Build: gcc -Wall -o rdmalab_export this_file.c -libverbs
                     * Run:   server: ./rdmalab_export <local_ip> <ib_dev>
                     *        client: ./rdmalab_export <local_ip> <ib_dev> <server_ip>
                     * TCP port %d. Each step below is the C code the lab showed for it, with the values
                     * chosen there; the program adds declarations and checks around each one.
                    """.formatted(CProgramText.TCP_PORT));
            if (!extras.isEmpty()) {
                text.append(" * After the seed's steps the ").append(role.name().toLowerCase(Locale.ROOT))
                        .append(" posts ").append(extras.size()).append(" extra work request")
                        .append(extras.size() == 1 ? "" : "s").append(".\n");
            }
            return text.append(" */\n").toString();
        }

        String body(List<Step> steps, boolean postsExtras) {
            StringBuilder out = new StringBuilder();
            out.append("    int rc = 0;\n    union ibv_gid my_gid;\n    struct cm_con_data_t remote_con_data;\n\n")
                    .append("    memset(&my_gid, 0, sizeof my_gid);\n")
                    .append("    memset(&remote_con_data, 0, sizeof remote_con_data);\n");
            int number = 0;
            for (Step step : steps) {
                if (step instanceof DataSteps.Teardown) {
                    appendExtras(out, postsExtras);
                }
                number++;
                out.append("\n    /* ---- ").append(number).append(". ").append(step.title()).append(" (")
                        .append(step.id()).append(") ---- */\n");
                block(out, step);
            }
            out.append("    (void) rc;\n");
            return out.toString();
        }

        private void block(StringBuilder out, Step step) {
            String code = step.cCode(session);
            if (step instanceof DataSteps.ReadRemoteBuffer) {
                out.append(indent(code + "\n/* the seed's protocol has no such message: skipped */", 1));
                return;
            }
            out.append("    {\n").append(indent(declarations(step), 2)).append(indent(code, 2))
                    .append(indent(check(step), 2)).append("    }\n");
        }

        private static String declarations(Step step) {
            if (step instanceof DeviceSteps.OpenDevice) {
                return "int num_devices = 0, i;\n";
            }
            if (step instanceof ResourceSteps.RegisterMr) {
                return "int size, mr_flags;\n";
            }
            if (step instanceof ResourceSteps.CreateQp) {
                return "struct ibv_qp_init_attr qp_init_attr;\n";
            }
            if (step instanceof ModifySteps.Modify) {
                return "struct ibv_qp_attr attr;\nint flags;\n";
            }
            if (step instanceof ConnectSteps.Exchange) {
                return "struct cm_con_data_t local_con_data, tmp_con_data;\n";
            }
            if (step instanceof ConnectSteps.Sync) {
                return "char temp_char;\n";
            }
            if (step instanceof DataSteps.PostRecv) {
                return "struct ibv_sge sge;\nstruct ibv_recv_wr rr, *bad_wr = NULL;\n";
            }
            if (step instanceof DataSteps.PostSend) {
                return "struct ibv_sge sge;\nstruct ibv_send_wr sr, *bad_wr = NULL;\n";
            }
            if (step instanceof DataSteps.PollCq) {
                return DataSteps.PollCq.DECLARATIONS;
            }
            return "";
        }

        private static String fail(String what) {
            return "{\n    fprintf(stderr, \"" + what + "\\n\");\n    return 1;\n}\n";
        }

        private static String check(Step step) {
            String title = step.title().replace("\"", "'");
            if (step instanceof DeviceSteps.OpenDevice) {
                return "\nif (!res->ctx) {\n    fprintf(stderr, \"no device %s could be opened (ibv_devices lists them)\\n\", "
                        + "config.dev_name);\n    return 1;\n}\nfprintf(stdout, \"found device %s\\n\", config.dev_name);\n";
            }
            if (step instanceof DeviceSteps.QueryPort) {
                return "\nif (rc) {\n    fprintf(stderr, \"" + title + " failed: %s\\n\", strerror(rc < 0 ? errno : rc));\n"
                        + "    return 1;\n}\n";
            }
            if (step instanceof ResourceSteps.AllocatePd) {
                return "\nif (!res->pd) " + fail("ibv_alloc_pd failed");
            }
            if (step instanceof ResourceSteps.CreateCq) {
                return "\nif (!res->cq) " + fail("ibv_create_cq failed");
            }
            if (step instanceof ResourceSteps.RegisterMr) {
                return "\nif (!res->mr) " + fail("ibv_reg_mr failed");
            }
            if (step instanceof ResourceSteps.CreateQp) {
                return "\nif (!res->qp) " + fail("ibv_create_qp failed")
                        + "fprintf(stdout, \"QP was created, QP number=0x%x\\n\", res->qp->qp_num);\n";
            }
            if (step instanceof ConnectSteps.Connect) {
                return "\nif (res->sock < 0) " + fail("failed to establish TCP connection")
                        + "fprintf(stdout, \"TCP connection was established\\n\");\n";
            }
            if (step instanceof ConnectSteps.Exchange) {
                return "\nif (rc < 0) " + fail("failed to exchange connection data between sides")
                        + "fprintf(stdout, \"Remote address = 0x%llx\\n\", (unsigned long long) remote_con_data.addr);\n"
                        + "fprintf(stdout, \"Remote rkey = 0x%x\\n\", remote_con_data.rkey);\n"
                        + "fprintf(stdout, \"Remote QP number = 0x%x\\n\", remote_con_data.qp_num);\n"
                        + "fprintf(stdout, \"Remote LID = 0x%x\\n\", remote_con_data.lid);\n";
            }
            if (step instanceof ModifySteps.Modify modify) {
                return "\nif (rc) {\n    fprintf(stderr, \"failed to modify QP state to " + modify.target().name()
                        + ": %s\\n\", strerror(rc));\n    return 1;\n}\n";
            }
            if (step instanceof ConnectSteps.Sync) {
                return "\nif (rc < 0) " + fail("sync error: the peer went away") + "(void) temp_char;\n";
            }
            if (step instanceof DataSteps.PostRecv) {
                return "\nif (rc) {\n    fprintf(stderr, \"failed to post RR: %s\\n\", strerror(rc));\n    return 1;\n}\n"
                        + "fprintf(stdout, \"Receive Request was posted\\n\");\n";
            }
            if (step instanceof DataSteps.PostSend) {
                return "\nif (rc) {\n    fprintf(stderr, \"failed to post SR: %s\\n\", strerror(rc));\n    return 1;\n}\n"
                        + "fprintf(stdout, \"" + title + " was posted\\n\");\n";
            }
            if (step instanceof DataSteps.PollCq) {
                return CProgramText.POLL_CHECK;
            }
            if (step instanceof DataSteps.Teardown) {
                return "\nmemset(res, 0, sizeof *res);\nres->sock = -1;\n";
            }
            return "";
        }

        private void appendExtras(StringBuilder out, boolean poster) {
            int number = 0;
            for (ExtraWork extra : extras) {
                number++;
                out.append("\n    /* ---- extra ").append(number).append(": ").append(extra.opcode().cName())
                        .append(poster ? "" : " by the peer").append(" ---- */\n    {\n");
                StringBuilder code = new StringBuilder();
                if (!poster && extra.consumesReceive()) {
                    code.append("struct ibv_sge sge;\nstruct ibv_recv_wr rr, *bad_wr = NULL;\n")
                            .append("sge.addr = (uintptr_t) res->buf;\nsge.length = res->mr->length;\n")
                            .append("sge.lkey = res->mr->lkey;\nmemset(&rr, 0, sizeof(rr));\n")
                            .append("rr.wr_id = ").append(1000 + number).append(";\nrr.sg_list = &sge;\nrr.num_sge = 1;\n")
                            .append("rc = ibv_post_recv(res->qp, &rr, &bad_wr);\n")
                            .append("if (rc) {\n    fprintf(stderr, \"failed to post RR: %s\\n\", strerror(rc));\n")
                            .append("    return 1;\n}\n");
                }
                code.append("rc = sock_sync_data(res->sock, 1, \"X\", &temp_char);\nif (rc < 0) ")
                        .append(fail("sync error: the peer went away"));
                if (poster) {
                    code.append(postCode(extra, number));
                    if (extra.signaled() || signalAll) {
                        code.append(pollCode("extra " + number));
                    }
                } else if (extra.consumesReceive()) {
                    code.append(pollCode("extra " + number + " (receive)"))
                            .append("if (wc.wc_flags & IBV_WC_WITH_IMM)\n")
                            .append("    fprintf(stdout, \"extra ").append(number)
                            .append(": received %u bytes, immediate 0x%x\\n\", wc.byte_len, ntohl(wc.imm_data));\n")
                            .append("else\n    fprintf(stdout, \"extra ").append(number)
                            .append(": received %u bytes\\n\", wc.byte_len);\n");
                }
                boolean polls = poster ? extra.signaled() || signalAll : extra.consumesReceive();
                out.append(indent("char temp_char;\n" + (polls ? DataSteps.PollCq.DECLARATIONS : "")
                        + code, 2)).append("    }\n");
            }
            if (!extras.isEmpty()) {
                out.append("\n    /* ---- after the extra work ---- */\n    {\n").append(indent("""
                        char temp_char;
                        rc = sock_sync_data(res->sock, 1, "Y", &temp_char);
                        if (rc < 0) {
                            fprintf(stderr, "sync error: the peer went away\\n");
                            return 1;
                        }
                        fprintf(stdout, "Buffer after the extra work: '%.*s'\\n", (int) res->mr->length, res->buf);
                        """, 2)).append("    }\n");
            }
        }

        private String pollCode(String what) {
            return DataSteps.PollCq.loop(pollTimeout) + "\n"
                    + CProgramText.POLL_CHECK.replace("completion was found", what + ": completion");
        }

        private static String postCode(ExtraWork extra, int number) {
            WrOpcode opcode = extra.opcode();
            StringBuilder code = new StringBuilder("struct ibv_sge sge;\nstruct ibv_send_wr sr, *bad_wr = NULL;\n");
            byte[] data = extra.data;
            if (data.length > 0) {
                code.append("static const unsigned char data[").append(data.length).append("] = {");
                for (int i = 0; i < data.length; i++) {
                    code.append(i % 12 == 0 ? "\n    " : " ").append(String.format("0x%02x", data[i] & 0xff))
                            .append(i + 1 < data.length ? "," : "");
                }
                code.append("\n};  /* \"").append(printable(data)).append("\" */\n")
                        .append("memcpy(res->buf + ").append(extra.localOffset()).append(", data, sizeof data);\n");
            }
            code.append("sge.addr = (uintptr_t) res->buf").append(extra.localOffset() == 0 ? "" : " + " + extra.localOffset())
                    .append(";\nsge.length = ").append(extra.length()).append(";\nsge.lkey = res->mr->lkey;\n")
                    .append("memset(&sr, 0, sizeof(sr));\nsr.wr_id = ").append(100 + number).append(";\n")
                    .append("sr.sg_list = &sge;\nsr.num_sge = 1;\nsr.opcode = ").append(opcode.cName()).append(";\n")
                    .append("sr.send_flags = ").append(extra.signaled() ? "IBV_SEND_SIGNALED" : "0").append(";\n");
            if (opcode.hasImmediate()) {
                code.append(String.format("sr.imm_data = htonl(0x%x);%n", extra.imm()));
            }
            String remote = "res->remote_props.addr" + (extra.remoteOffset() == 0 ? "" : " + " + extra.remoteOffset());
            if (opcode.isAtomic()) {
                code.append("sr.wr.atomic.remote_addr = ").append(remote).append(";\n")
                        .append("sr.wr.atomic.rkey = res->remote_props.rkey;\n")
                        .append("sr.wr.atomic.compare_add = ").append(Long.toUnsignedString(extra.compareAdd()))
                        .append("ULL;\n");
                if (opcode == WrOpcode.ATOMIC_CMP_AND_SWP) {
                    code.append("sr.wr.atomic.swap = ").append(Long.toUnsignedString(extra.swap())).append("ULL;\n");
                }
            } else if (opcode != WrOpcode.SEND && opcode != WrOpcode.SEND_WITH_IMM) {
                code.append("sr.wr.rdma.remote_addr = ").append(remote).append(";\n")
                        .append("sr.wr.rdma.rkey = res->remote_props.rkey;\n");
            }
            return code.append("rc = ibv_post_send(res->qp, &sr, &bad_wr);\n")
                    .append("if (rc) {\n    fprintf(stderr, \"failed to post extra ").append(number)
                    .append(": %s\\n\", strerror(rc));\n    return 1;\n}\n")
                    .append("fprintf(stdout, \"extra ").append(number).append(": ").append(opcode.cName())
                    .append(" of %u bytes was posted\\n\", sge.length);\n").toString();
        }
    }

    private static String printable(byte[] data) {
        String text = new String(data, StandardCharsets.ISO_8859_1);
        StringBuilder out = new StringBuilder();
        for (char c : text.toCharArray()) {
            out.append(c >= 0x20 && c < 0x7f && c != '*' && c != '/' && c != '"' && c != '\\' ? c : '.');
        }
        return out.toString();
    }

    private static String indent(String code, int levels) {
        if (code.isEmpty()) {
            return "";
        }
        String pad = "    ".repeat(levels);
        StringBuilder out = new StringBuilder();
        for (String line : code.split("\n", -1)) {
            if (!line.isEmpty()) {
                out.append(pad).append(line);
            }
            out.append('\n');
        }
        String text = out.toString();
        return text.endsWith("\n\n") ? text.substring(0, text.length() - 1) : text;
    }
}
