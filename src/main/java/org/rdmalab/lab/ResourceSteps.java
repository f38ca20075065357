package org.rdmalab.lab;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.BitFlag;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpInitAttributes;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.RcPath;
import org.rdmalab.verbs.VerbsException;

/** PD, CQ, MR and QP creation. */
final class ResourceSteps {

    private ResourceSteps() {
    }

    /** {@code ibv_alloc_pd}. */
    static final class AllocatePd extends Step {

        AllocatePd() {
            super("alloc-pd", "Allocate PD");
        }

        @Override
        public String cCode(LabSession session) {
            return "res->pd = ibv_alloc_pd(res->ctx);";
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().context().isEmpty() ? Optional.of(LabPhrase.of("blocked.openDevice"))
                    : Optional.empty();
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            LabResources resources = session.resources();
            String arguments = "ctx " + resources.context().orElseThrow().device().name();
            ProtectionDomain pd;
            try {
                pd = resources.context().orElseThrow().allocatePd();
            } catch (VerbsException e) {
                session.emit(LabEvent.VerbCall.failed("ibv_alloc_pd", arguments, e));
                throw e;
            }
            resources.pd(pd);
            session.emit(LabEvent.VerbCall.ok("ibv_alloc_pd", arguments, "pd handle " + pd.handle()));
            return StepResult.ok(LabPhrase.of("result.pd", pd.handle()));
        }
    }

    /** {@code ibv_create_cq}. */
    static final class CreateCq extends Step {

        CreateCq(int cqSize) {
            super("create-cq", "Create CQ", Parameter.integer("cq_size", "number of CQ entries", cqSize, 1, 32767));
        }

        @Override
        public String cCode(LabSession session) {
            return "res->cq = ibv_create_cq(res->ctx, %d, NULL, NULL, 0);".formatted(parameter("cq_size").asInt());
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().context().isEmpty() ? Optional.of(LabPhrase.of("blocked.openDevice"))
                    : Optional.empty();
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            LabResources resources = session.resources();
            String arguments = "ctx " + resources.context().orElseThrow().device().name() + ", cqe "
                    + parameter("cq_size").asInt() + ", cq_context NULL, channel NULL, comp_vector 0";
            CompletionQueue cq;
            try {
                cq = resources.context().orElseThrow().createCq(parameter("cq_size").asInt(), null, 0);
            } catch (VerbsException e) {
                session.emit(LabEvent.VerbCall.failed("ibv_create_cq", arguments, e));
                throw e;
            }
            resources.cq(cq);
            session.emit(LabEvent.VerbCall.ok("ibv_create_cq", arguments, "cq with " + cq.capacity() + " entries"));
            return StepResult.ok(LabPhrase.of("result.cq", cq.capacity()));
        }
    }

    /** {@code malloc} + {@code ibv_reg_mr}, the buffer filled as the seed does. */
    static final class RegisterMr extends Step {

        RegisterMr(int size, String initialText, int fill, int access) {
            super("reg-mr", "Register MR",
                    Parameter.integer("size", "buffer bytes (MSG_SIZE = strlen(MSG) + 1)", size, 1, 1 << 30),
                    Parameter.hex("fill", "byte the buffer is filled with (memset)", fill, 0, 255),
                    Parameter.text("initial", "text copied into the buffer before registration; empty = zeroed",
                            initialText),
                    Parameter.text("mr_flags", "access flags", BitFlag.names(AccessFlag.class, access)));
        }

        int access() {
            String text = parameter("mr_flags").value();
            return text.isBlank() || text.equals("none") ? 0 : BitFlag.parse(AccessFlag.class, text);
        }

        @Override
        public String cCode(LabSession session) {
            String initial = parameter("initial").value();
            String fill = initial.isEmpty()
                    ? String.format("memset(res->buf, 0x%x, size);", parameter("fill").asInt())
                    : "strcpy(res->buf, \"" + initial + "\");";
            return """
                    size = %d;
                    res->buf = (char *) malloc(size);
                    %s
                    mr_flags = %s;
                    res->mr = ibv_reg_mr(res->pd, res->buf, size, mr_flags);""".formatted(
                    parameter("size").asInt(), fill, BitFlag.cExpression(AccessFlag.class, access()));
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().pd() == null ? Optional.of(LabPhrase.of("blocked.allocatePd")) : Optional
                    .empty();
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            LabResources resources = session.resources();
            int size = parameter("size").asInt();
            MemoryRegion mr;
            try {
                mr = resources.pd().registerMemory(size, access());
            } catch (VerbsException e) {
                session.emit(LabEvent.VerbCall.failed("ibv_reg_mr", String.format("pd 0x%x, addr (malloc'd), length %d, %s",
                        resources.pd().handle(), size, BitFlag.cExpression(AccessFlag.class, access())), e));
                throw e;
            }
            String initial = parameter("initial").value();
            if (parameter("fill").asInt() != 0) {
                byte[] filled = new byte[size];
                java.util.Arrays.fill(filled, (byte) parameter("fill").asInt());
                mr.write(0, filled);
            }
            if (!initial.isEmpty()) {
                byte[] text = (initial + '\0').getBytes(StandardCharsets.US_ASCII);
                mr.write(0, java.util.Arrays.copyOf(text, Math.min(text.length, size)));
            }
            resources.mr(mr);
            String created = String.format("addr 0x%016x length %d lkey 0x%08x rkey 0x%08x", mr.address(), mr.length(),
                    mr.lkey(), mr.rkey());
            session.emit(LabEvent.VerbCall.ok("ibv_reg_mr", VerbArgs.regMr(mr),
                    String.format("mr lkey 0x%08x rkey 0x%08x", mr.lkey(), mr.rkey())));
            return StepResult.ok(created);
        }
    }

    /** {@code ibv_create_qp}. */
    static final class CreateQp extends Step {

        CreateQp(QpCapabilities caps, boolean sqSigAll) {
            super("create-qp", "Create QP",
                    Parameter.choice("qp_type", "transport", "RC", List.of("RC", "UC")),
                    Parameter.integer("sq_sig_all", "1 = every send WR completes", sqSigAll ? 1 : 0, 0, 1),
                    Parameter.integer("max_send_wr", "send queue depth", caps.maxSendWr(), 1, 16384),
                    Parameter.integer("max_recv_wr", "receive queue depth", caps.maxRecvWr(), 1, 16384),
                    Parameter.integer("max_send_sge", "SGEs per send WR", caps.maxSendSge(), 1, 32),
                    Parameter.integer("max_recv_sge", "SGEs per receive WR", caps.maxRecvSge(), 1, 32));
        }

        @Override
        public String cCode(LabSession session) {
            return """
                    memset(&qp_init_attr, 0, sizeof(qp_init_attr));
                    qp_init_attr.qp_type = IBV_QPT_%s;
                    qp_init_attr.sq_sig_all = %d;
                    qp_init_attr.send_cq = res->cq;
                    qp_init_attr.recv_cq = res->cq;
                    qp_init_attr.cap.max_send_wr = %d;
                    qp_init_attr.cap.max_recv_wr = %d;
                    qp_init_attr.cap.max_send_sge = %d;
                    qp_init_attr.cap.max_recv_sge = %d;
                    res->qp = ibv_create_qp(res->pd, &qp_init_attr);""".formatted(parameter("qp_type").value(),
                    parameter("sq_sig_all").asInt(), parameter("max_send_wr").asInt(),
                    parameter("max_recv_wr").asInt(), parameter("max_send_sge").asInt(),
                    parameter("max_recv_sge").asInt());
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            LabResources resources = session.resources();
            if (resources.pd() == null) {
                return Optional.of(LabPhrase.of("blocked.allocatePd"));
            }
            return resources.cq() == null ? Optional.of(LabPhrase.of("blocked.createCq")) : Optional.empty();
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            LabResources resources = session.resources();
            QpCapabilities caps = new QpCapabilities(parameter("max_send_wr").asInt(), parameter("max_recv_wr").asInt(),
                    parameter("max_send_sge").asInt(), parameter("max_recv_sge").asInt(), 0);
            QpInitAttributes init = new QpInitAttributes(QpType.parse(parameter("qp_type").value()), resources.cq(),
                    resources.cq(), caps, parameter("sq_sig_all").asInt() == 1);
            String arguments = VerbArgs.createQp(resources.pd().handle(), init);
            QueuePair qp;
            try {
                qp = init.type() == QpType.RC ? RcPath.createQp(resources.pd(), resources.cq(), caps, init.sqSigAll())
                        : resources.pd().createQp(init);
            } catch (VerbsException e) {
                session.emit(LabEvent.VerbCall.failed("ibv_create_qp", arguments, e));
                throw e;
            }
            resources.qp(qp);
            String created = String.format("QP number 0x%x, state %s", qp.qpNum(), qp.state().cName());
            session.emit(LabEvent.VerbCall.ok("ibv_create_qp", arguments, created));
            session.print(String.format("QP was created, QP number=0x%x", qp.qpNum()));
            return StepResult.ok(LabPhrase.of("result.qp", "0x" + Integer.toHexString(qp.qpNum()), qp.state().cName()));
        }
    }
}
