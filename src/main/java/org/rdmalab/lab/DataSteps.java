package org.rdmalab.lab;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;

/** Posting work requests, polling completions, and looking at the buffer. */
final class DataSteps {

    private DataSteps() {
    }

    /** Text of a buffer up to its first NUL, as C's {@code %s} prints it. */
    static String cString(byte[] bytes) {
        int end = 0;
        while (end < bytes.length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
    }

    /** {@code ibv_post_recv} of the buffer. */
    static final class PostRecv extends Step {

        PostRecv(int length) {
            super("post-recv", "Post RECV",
                    Parameter.integer("wr_id", "id returned in the completion", 0, 0, Integer.MAX_VALUE),
                    Parameter.integer("length", "bytes the receive can hold", length, 0, 1 << 30));
        }

        @Override
        public String cCode(LabSession session) {
            return """
                    sge.addr = (uintptr_t) res->buf;
                    sge.length = %d;
                    sge.lkey = res->mr->lkey;
                    rr.next = NULL;
                    rr.wr_id = %d;
                    rr.sg_list = &sge;
                    rr.num_sge = 1;
                    rc = ibv_post_recv(res->qp, &rr, &bad_wr);""".formatted(parameter("length").asInt(),
                    parameter("wr_id").asInt());
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            LabResources resources = session.resources();
            if (resources.qp() == null) {
                return Optional.of(LabPhrase.of("blocked.createQp"));
            }
            return resources.mr() == null ? Optional.of(LabPhrase.of("blocked.registerMr")) : Optional.empty();
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            LabResources resources = session.resources();
            int length = Math.min(parameter("length").asInt(), resources.mr().length());
            ReceiveWorkRequest request = ReceiveWorkRequest.of(parameter("wr_id").asInt(), resources.mr().sge(0,
                    length));
            session.traffic().postRecv(List.of(request), "RECV of " + length + " bytes");
            session.print("Receive Request was posted");
            return StepResult.ok(LabPhrase.of("result.recvPosted", length));
        }
    }

    /** {@code ibv_post_send} of one WR of a chosen opcode. */
    static final class PostSend extends Step {

        static final List<String> OPCODES = List.of("RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "SEND", "SEND_WITH_IMM",
                "RDMA_READ", "ATOMIC_FETCH_AND_ADD", "ATOMIC_CMP_AND_SWP");

        PostSend(WrOpcode opcode, int length) {
            super("post-" + opcode.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
                    "Post " + opcode.name().replace("RDMA_", "RDMA ").replace('_', ' '),
                    Parameter.choice("opcode", "what to do", opcode.name(), OPCODES),
                    Parameter.integer("wr_id", "id returned in the completion", 0, 0, Integer.MAX_VALUE),
                    Parameter.integer("length", "bytes (atomics: 8)", length, 0, 1 << 30),
                    Parameter.integer("remote_offset", "offset into the peer's buffer", 0, 0, 1 << 30),
                    Parameter.hex("imm_data", "immediate data (WITH_IMM opcodes)", 0, 0, 0xffffffffL),
                    Parameter.integer("compare_add", "atomic: add value, or compare value", 0, Long.MIN_VALUE,
                            Long.MAX_VALUE),
                    Parameter.integer("swap", "atomic CMP_AND_SWP: new value", 0, Long.MIN_VALUE, Long.MAX_VALUE));
        }

        WrOpcode opcode() {
            return WrOpcode.valueOf(parameter("opcode").value());
        }

        @Override
        public String cCode(LabSession session) {
            WrOpcode opcode = opcode();
            StringBuilder code = new StringBuilder()
                    .append("sge.addr = (uintptr_t) res->buf;\n")
                    .append("sge.length = ").append(parameter("length").asInt()).append(";\n")
                    .append("sge.lkey = res->mr->lkey;\n")
                    .append("memset(&sr, 0, sizeof(sr));\n")
                    .append("sr.wr_id = ").append(parameter("wr_id").asInt()).append(";\n")
                    .append("sr.sg_list = &sge;\nsr.num_sge = 1;\n")
                    .append("sr.opcode = ").append(opcode.cName()).append(";\n")
                    .append("sr.send_flags = IBV_SEND_SIGNALED;\n");
            if (opcode.hasImmediate()) {
                code.append(String.format("sr.imm_data = htonl(0x%x);%n", parameter("imm_data").asLong()));
            }
            String remote = "res->remote_props.addr" + (parameter("remote_offset").asInt() == 0 ? ""
                    : " + " + parameter("remote_offset").asInt());
            if (opcode.isAtomic()) {
                code.append("sr.wr.atomic.remote_addr = ").append(remote).append(";\n")
                        .append("sr.wr.atomic.rkey = res->remote_props.rkey;\n")
                        .append("sr.wr.atomic.compare_add = ").append(parameter("compare_add").value()).append(";\n");
                if (opcode == WrOpcode.ATOMIC_CMP_AND_SWP) {
                    code.append("sr.wr.atomic.swap = ").append(parameter("swap").value()).append(";\n");
                }
            } else if (opcode != WrOpcode.SEND && opcode != WrOpcode.SEND_WITH_IMM) {
                code.append("sr.wr.rdma.remote_addr = ").append(remote).append(";\n")
                        .append("sr.wr.rdma.rkey = res->remote_props.rkey;\n");
            }
            return code.append("rc = ibv_post_send(res->qp, &sr, &bad_wr);").toString();
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            LabResources resources = session.resources();
            if (resources.qp() == null) {
                return Optional.of(LabPhrase.of("blocked.createQp"));
            }
            if (resources.qp().state() != QpState.RTS) {
                return Optional.of(LabPhrase.of("blocked.rtsIs", resources.qp().state().name()));
            }
            return resources.remoteData().isEmpty() ? Optional.of(LabPhrase.of("blocked.exchange")) : Optional.empty();
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            LabResources resources = session.resources();
            WrOpcode opcode = opcode();
            MemoryRegion mr = resources.mr();
            ConnectionData remote = resources.remoteData().orElseThrow();
            int length = opcode.isAtomic() ? 8 : Math.min(parameter("length").asInt(), mr.length());
            long remoteAddress = remote.addr() + parameter("remote_offset").asInt();
            SendWorkRequest request = new SendWorkRequest(parameter("wr_id").asInt(), List.of(mr.sge(0, length)), opcode,
                    SendFlag.SIGNALED.value(), (int) parameter("imm_data").asLong(), remoteAddress, remote.rkey(),
                    parameter("compare_add").asLong(), parameter("swap").asLong());
            Phrase what = LabTraffic.posting(opcode, length, remoteAddress, remote.rkey());
            session.traffic().postSend(request, what.english(), parameter("remote_offset").asInt());
            String verb = switch (opcode) {
                case SEND, SEND_WITH_IMM -> "Send";
                case RDMA_READ -> "RDMA Read";
                case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> "RDMA Write";
                default -> "Atomic";
            };
            session.print(verb + " Request was posted");
            return StepResult.ok(LabPhrase.of("result.posted", what));
        }
    }

    /** {@code poll_completion}: poll the CQ for one completion for at most the timeout. */
    static final class PollCq extends Step {

        PollCq(String purpose, long timeoutMillis) {
            super("poll-cq-" + purpose.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-"),
                    "Poll CQ (" + purpose + ")",
                    Parameter.integer("timeout_ms", "MAX_POLL_CQ_TIMEOUT", timeoutMillis, 1, 600_000));
        }

        /** The C variables {@link #loop} uses, one declaration a line. */
        static final String DECLARATIONS = "struct ibv_wc wc;\nstruct timeval cur_time;\n"
                + "long start_time_msec, cur_time_msec;\nint poll_result;\n";

        /**
         * The seed's poll loop in C: {@code ibv_poll_cq} for one completion until one comes or
         * {@code timeoutMillis} pass (no newline after its last line); the step shows it and
         * {@link CExport} writes it for each poll, the extra work's too.
         */
        static String loop(long timeoutMillis) {
            return """
                    gettimeofday(&cur_time, NULL);
                    start_time_msec = (cur_time.tv_sec * 1000) + (cur_time.tv_usec / 1000);
                    do {
                        poll_result = ibv_poll_cq(res->cq, 1, &wc);
                        gettimeofday(&cur_time, NULL);
                        cur_time_msec = (cur_time.tv_sec * 1000) + (cur_time.tv_usec / 1000);
                    } while ((poll_result == 0) && ((cur_time_msec - start_time_msec) < %d));""".formatted(
                    timeoutMillis);
        }

        @Override
        public String cCode(LabSession session) {
            return loop(parameter("timeout_ms").asInt());
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().cq() == null ? Optional.of(LabPhrase.of("blocked.createCq")) : Optional.empty();
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            Optional<WorkCompletion> polled = session.traffic().pollOne(Duration.ofMillis(parameter("timeout_ms")
                    .asLong()));
            if (polled.isEmpty()) {
                session.print("completion wasn't found in the CQ after timeout");
                return StepResult.failed(LabPhrase.of("result.noCompletion", parameter("timeout_ms").asLong()));
            }
            WorkCompletion completion = polled.get();
            if (!completion.isSuccess()) {
                session.print(String.format("got bad completion with status: 0x%x, vendor syndrome: 0x%x",
                        completion.status().value(), completion.vendorError()));
                return StepResult.failed(completion.status().cName() + " (" + completion.status().text() + ")",
                        completion.toString());
            }
            session.print("completion was found in CQ with status 0x0");
            return StepResult.ok(completion.toString());
        }
    }

    /** {@code strcpy(res->buf, ...)}: the CPU writes the local buffer. */
    static final class WriteBuffer extends Step {

        WriteBuffer(String text) {
            super("write-buffer", "Write the local buffer", Parameter.text("text", "what to put in the buffer", text));
        }

        @Override
        public String cCode(LabSession session) {
            return "strcpy(res->buf, \"%s\");".formatted(parameter("text").value());
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().mr() == null ? Optional.of(LabPhrase.of("blocked.registerMr")) : Optional
                    .empty();
        }

        @Override
        protected StepResult execute(LabSession session) {
            LabResources resources = session.resources();
            byte[] text = (parameter("text").value() + '\0').getBytes(StandardCharsets.ISO_8859_1);
            if (text.length > resources.mr().length()) {
                throw new IllegalArgumentException("text: " + text.length + " bytes with the NUL do not fit the "
                        + resources.mr().length() + "-byte buffer");
            }
            resources.mr().write(0, text);
            return StepResult.ok(LabPhrase.of("result.bufferHolds", parameter("text").value()));
        }
    }

    /** Prints the local buffer, as the seed's server does at the end. */
    static final class ReadBuffer extends Step {

        private final String label;

        ReadBuffer(String label) {
            super("read-buffer", "Read the local buffer");
            this.label = label;
        }

        @Override
        public String cCode(LabSession session) {
            return "fprintf(stdout, \"" + label + ": '%s'\\n\", res->buf);";
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().mr() == null ? Optional.of(LabPhrase.of("blocked.registerMr")) : Optional
                    .empty();
        }

        @Override
        protected StepResult execute(LabSession session) {
            LabResources resources = session.resources();
            byte[] bytes = resources.mr().read(0, resources.mr().length());
            String text = cString(bytes);
            session.print(label + ": '" + text + "'");
            return StepResult.ok("\"" + text + "\"", "bytes: " + Arrays.toString(Arrays.copyOf(bytes,
                    Math.min(bytes.length, 32))));
        }
    }

    /** The C of {@link BufferPattern#crc32} over the whole buffer and the line both sides print. */
    private static String cCrcLine(String what) {
        return """
                {
                    unsigned int crc = 0xffffffffu;
                    for (size_t i = 0; i < (size_t) size; i++) {
                        crc ^= (unsigned char) res->buf[i];
                        for (int k = 0; k < 8; k++)
                            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
                    }
                    fprintf(stdout, "crc32 of %s: 0x%%08x over %%d bytes\\n", ~crc, (int) size);
                }""".formatted(what);
    }

    /**
     * {@code demo --pattern}: fills the local buffer after its text with {@link BufferPattern}'s
     * bytes for one message and prints their CRC32, which the receiving side prints too.
     */
    static final class FillPattern extends Step {

        private final String what;

        FillPattern(int message, String what) {
            super("fill-pattern", "Fill the buffer with a pattern",
                    Parameter.integer("message", "which pattern (1 SEND, 2 READ, 3 WRITE)", message, 1, 255));
            this.what = what;
        }

        @Override
        public String cCode(LabSession session) {
            return """
                    for (size_t i = strlen(res->buf) + 1; i < (size_t) size; i++) {
                        unsigned int x = (unsigned int) i * 0x9e3779b1u + %du * 0x85ebca77u;
                        x ^= x >> 15;
                        x *= 0x2c1b3c6du;
                        x ^= x >> 12;
                        res->buf[i] = (char) x;
                    }
                    """.formatted(parameter("message").asInt()) + cCrcLine(what);
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().mr() == null ? Optional.of(LabPhrase.of("blocked.registerMr")) : Optional
                    .empty();
        }

        @Override
        protected StepResult execute(LabSession session) {
            MemoryRegion mr = session.resources().mr();
            byte[] filled = BufferPattern.fill(mr.read(0, mr.length()), parameter("message").asInt());
            mr.write(0, filled);
            String line = BufferPattern.line(what, filled);
            session.print(line);
            return StepResult.ok(line);
        }
    }

    /** {@code demo --pattern}: prints the CRC32 of the whole local buffer, to compare with the sender's. */
    static final class Checksum extends Step {

        private final String what;

        Checksum(String what) {
            super("checksum", "Checksum the buffer");
            this.what = what;
        }

        @Override
        public String cCode(LabSession session) {
            return cCrcLine(what);
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().mr() == null ? Optional.of(LabPhrase.of("blocked.registerMr")) : Optional
                    .empty();
        }

        @Override
        protected StepResult execute(LabSession session) {
            MemoryRegion mr = session.resources().mr();
            String line = BufferPattern.line(what, mr.read(0, mr.length()));
            session.print(line);
            return StepResult.ok(line);
        }
    }

    /** A snapshot of the peer's buffer over TCP (lab protocol): see what the RDMA WRITE put there. */
    static final class ReadRemoteBuffer extends Step {

        ReadRemoteBuffer(int length) {
            super("read-remote-buffer", "Read the remote buffer (snapshot)",
                    Parameter.integer("offset", "offset into the peer's buffer", 0, 0, 1 << 30),
                    Parameter.integer("length", "bytes", length, 1, 1 << 20));
        }

        @Override
        public String cCode(LabSession session) {
            return "/* not a verb: RDMA Lab's control protocol asks the peer for a copy of its buffer */";
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().connected() ? Optional.empty() : Optional.of(LabPhrase.of("blocked.connectTcp"));
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            Optional<byte[]> snapshot = session.traffic().readPeerBuffer(parameter("offset").asInt(),
                    parameter("length").asInt());
            // Without one (another protocol) the link says why it cannot carry a snapshot.
            byte[] bytes = snapshot.isPresent() ? snapshot.get()
                    : session.link().readPeerBuffer(parameter("offset").asInt(), parameter("length").asInt());
            String text = cString(bytes);
            session.print("Contents of the peer's buffer: '" + text + "'");
            return StepResult.ok(LabPhrase.of("result.quotedBytes", text, bytes.length));
        }
    }

    /** {@code resources_destroy}: QP, MR, buffer, CQ, PD, device, socket. */
    static final class Teardown extends Step {

        Teardown() {
            super("teardown", "Tear down");
        }

        @Override
        public String cCode(LabSession session) {
            return """
                    ibv_destroy_qp(res->qp);
                    ibv_dereg_mr(res->mr);
                    free(res->buf);
                    ibv_destroy_cq(res->cq);
                    ibv_dealloc_pd(res->pd);
                    ibv_close_device(res->ctx);
                    close(res->sock);""";
        }

        @Override
        protected StepResult execute(LabSession session) {
            String device = session.resources().context().map(context -> context.device().name()).orElse("(none open)");
            session.close();
            session.emit(LabEvent.VerbCall.ok("ibv_close_device", "ctx " + device,
                    "QP, MR, CQ, PD and context released"));
            session.print("test result is 0");
            return StepResult.ok(LabPhrase.of("result.released"));
        }
    }
}
