package org.rdmalab.lab;

import java.util.Optional;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.BitFlag;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.RcPath;

/** The three {@code ibv_modify_qp} calls of the seed: RESET → INIT → RTR → RTS. */
final class ModifySteps {

    private ModifySteps() {
    }

    /** Common part: an editable mask, the call, the state event. */
    abstract static class Modify extends Step {

        private final QpState target;

        Modify(String id, String title, QpState target, int mask, Parameter... parameters) {
            super(id, title, withMask(mask, parameters));
            this.target = target;
        }

        private static Parameter[] withMask(int mask, Parameter[] parameters) {
            Parameter[] all = new Parameter[parameters.length + 1];
            System.arraycopy(parameters, 0, all, 0, parameters.length);
            all[parameters.length] = Parameter.text("flags", "attribute mask (names or hex); drop one to see EINVAL",
                    QpAttrMask.names(mask));
            return all;
        }

        int mask() {
            return QpAttrMask.parse(parameter("flags").value());
        }

        /** The state this modify moves the QP to. */
        QpState target() {
            return target;
        }

        String maskC() {
            return "flags = " + BitFlag.cExpression(QpAttrMask.class, mask()) + ";\nrc = ibv_modify_qp(res->qp, &attr, flags);";
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().qp() == null ? Optional.of(LabPhrase.of("blocked.createQp")) : Optional.empty();
        }

        abstract QpAttributes attributes(LabSession session);

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            LabResources resources = session.resources();
            QpState before = resources.qp().state();
            QpAttributes applied;
            try {
                applied = RcPath.modify(resources.qp(), attributes(session).state(target), mask());
            } catch (org.rdmalab.verbs.VerbsException e) {
                session.emit(LabEvent.VerbCall.failed("ibv_modify_qp", VerbArgs.modifyQp(resources.qp(),
                        attributes(session).state(target), mask()), e));
                session.print("failed to modify QP state to " + target.name());
                throw e;
            }
            QpState after = resources.qp().state();
            resources.applied(target, applied);
            session.emit(LabEvent.VerbCall.ok("ibv_modify_qp", VerbArgs.modifyQp(resources.qp(), applied, mask()),
                    before.name() + " → " + after.name()));
            session.stateChanged(before, after);
            return StepResult.ok("QP 0x" + Integer.toHexString(resources.qp().qpNum()) + ": " + before.name() + " → "
                    + after.name());
        }
    }

    /** RESET → INIT. */
    static final class ToInit extends Modify {

        ToInit(int ibPort, int access) {
            super("modify-init", "Modify QP to INIT", QpState.INIT,
                    RcPath.INIT_MASK,
                    Parameter.integer("port_num", "device port", ibPort, 1, 255),
                    Parameter.integer("pkey_index", "P_Key table index", 0, 0, 65535),
                    Parameter.text("qp_access_flags", "what the peer may do to this side's memory",
                            BitFlag.names(AccessFlag.class, access)));
        }

        int access() {
            String text = parameter("qp_access_flags").value();
            return text.isBlank() || text.equals("none") ? 0 : BitFlag.parse(AccessFlag.class, text);
        }

        @Override
        QpAttributes attributes(LabSession session) {
            return RcPath.init(parameter("port_num").asInt(), parameter("pkey_index").asInt(), access());
        }

        @Override
        public String cCode(LabSession session) {
            return """
                    memset(&attr, 0, sizeof(attr));
                    attr.qp_state = IBV_QPS_INIT;
                    attr.port_num = %d;
                    attr.pkey_index = %d;
                    attr.qp_access_flags = %s;
                    %s""".formatted(parameter("port_num").asInt(), parameter("pkey_index").asInt(),
                    BitFlag.cExpression(AccessFlag.class, access()), maskC());
        }
    }

    /** INIT → RTR: the peer's QPN, PSN and address. */
    static final class ToRtr extends Modify {

        ToRtr(int ibPort, Mtu mtu, String rqPsn, int minRnrTimer) {
            super("modify-rtr", "Modify QP to RTR", QpState.RTR,
                    RcPath.RTR_MASK,
                    Parameter.choice("path_mtu", "path MTU in bytes", Integer.toString(mtu.bytes()),
                            java.util.List.of("256", "512", "1024", "2048", "4096")),
                    Parameter.text("rq_psn", "first PSN expected from the peer (a number, or 'peer')", rqPsn),
                    Parameter.integer("max_dest_rd_atomic", "READs/atomics the peer may have outstanding", 1, 0, 128),
                    Parameter.hex("min_rnr_timer", "RNR NAK timer code", minRnrTimer, 0, 31),
                    Parameter.integer("sl", "service level", 0, 0, 15),
                    Parameter.integer("hop_limit", "GRH hop limit (IPv4 TTL)", 1, 0, 255),
                    Parameter.integer("port_num", "device port", ibPort, 1, 255));
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            Optional<Phrase> base = super.blockedBy(session);
            if (base.isPresent()) {
                return base;
            }
            return session.resources().remoteData().isEmpty() ? Optional.of(LabPhrase.of("blocked.exchange"))
                    : Optional.empty();
        }

        int rqPsn(LabSession session) {
            String text = parameter("rq_psn").value().trim();
            if (text.equalsIgnoreCase("peer")) {
                return session.resources().remoteData().map(ConnectionData::psn).orElse(0);
            }
            return Integer.decode(text);
        }

        @Override
        QpAttributes attributes(LabSession session) {
            LabResources resources = session.resources();
            ConnectionData remote = resources.remoteData().orElseThrow();
            int port = parameter("port_num").asInt();
            AddressVector av = resources.gidEntry()
                    .map(gid -> RcPath.route(remote.gid(), gid.index(), parameter("hop_limit").asInt(), remote.lid(),
                            parameter("sl").asInt(), port))
                    .orElseGet(() -> new AddressVector(null, remote.lid(), parameter("sl").asInt(), 0, 0, port));
            return RcPath.rtr(Mtu.ofBytes(Integer.parseInt(parameter("path_mtu").value())), remote.qpn(),
                    rqPsn(session), parameter("max_dest_rd_atomic").asInt(), parameter("min_rnr_timer").asInt(), av);
        }

        /** {@code rq_psn} as C: the number, or for 'peer' the PSN the peer sent (0 before the exchange). */
        String rqPsnC(LabSession session) {
            String text = parameter("rq_psn").value().trim();
            return text.equalsIgnoreCase("peer")
                    ? String.format("0x%06x;  /* 'peer': the PSN the peer sent */", rqPsn(session)) : text + ";";
        }

        @Override
        public String cCode(LabSession session) {
            String dest = session.resources().remoteData().map(d -> String.format("  /* 0x%x */", d.qpn())).orElse("");
            return """
                    memset(&attr, 0, sizeof(attr));
                    attr.qp_state = IBV_QPS_RTR;
                    attr.path_mtu = IBV_MTU_%s;
                    attr.dest_qp_num = remote_con_data.qp_num;%s
                    attr.rq_psn = %s
                    attr.max_dest_rd_atomic = %d;
                    attr.min_rnr_timer = 0x%x;
                    attr.ah_attr.dlid = remote_con_data.lid;
                    attr.ah_attr.sl = %d;
                    attr.ah_attr.src_path_bits = 0;
                    attr.ah_attr.port_num = %d;
                    if (config.gid_idx >= 0) {
                        attr.ah_attr.is_global = 1;
                        memcpy(&attr.ah_attr.grh.dgid, remote_con_data.gid, 16);
                        attr.ah_attr.grh.flow_label = 0;
                        attr.ah_attr.grh.hop_limit = %d;
                        attr.ah_attr.grh.sgid_index = config.gid_idx;
                        attr.ah_attr.grh.traffic_class = 0;
                    } else {
                        attr.ah_attr.is_global = 0;  /* gid_idx -1: no GRH, which RoCE refuses */
                    }
                    %s""".formatted(parameter("path_mtu").value(), dest, rqPsnC(session),
                    parameter("max_dest_rd_atomic").asInt(), parameter("min_rnr_timer").asInt(),
                    parameter("sl").asInt(), parameter("port_num").asInt(), parameter("hop_limit").asInt(), maskC());
        }
    }

    /** RTR → RTS: the send side's timers and first PSN. */
    static final class ToRts extends Modify {

        ToRts(int timeout, int retryCount, int rnrRetry, String sqPsn) {
            super("modify-rts", "Modify QP to RTS", QpState.RTS,
                    RcPath.RTS_MASK,
                    Parameter.hex("timeout", "local ACK timeout: 4.096 us * 2^timeout", timeout, 0, 31),
                    Parameter.integer("retry_cnt", "transport retries", retryCount, 0, 7),
                    Parameter.integer("rnr_retry", "RNR retries (7 = infinite)", rnrRetry, 0, 7),
                    Parameter.text("sq_psn", "first PSN sent (a number, or 'own')", sqPsn),
                    Parameter.integer("max_rd_atomic", "READs/atomics outstanding", 1, 0, 128));
        }

        int sqPsn(LabSession session) {
            String text = parameter("sq_psn").value().trim();
            return text.equalsIgnoreCase("own") ? session.resources().sendPsn() : Integer.decode(text);
        }

        /** {@code sq_psn} as C: the number, or for 'own' this side's first PSN. */
        String sqPsnC(LabSession session) {
            String text = parameter("sq_psn").value().trim();
            return text.equalsIgnoreCase("own")
                    ? String.format("0x%06x;  /* 'own': this side's first PSN */", sqPsn(session)) : text + ";";
        }

        @Override
        QpAttributes attributes(LabSession session) {
            return RcPath.rts(parameter("timeout").asInt(), parameter("retry_cnt").asInt(),
                    parameter("rnr_retry").asInt(), sqPsn(session), parameter("max_rd_atomic").asInt());
        }

        @Override
        public String cCode(LabSession session) {
            return """
                    memset(&attr, 0, sizeof(attr));
                    attr.qp_state = IBV_QPS_RTS;
                    attr.timeout = 0x%x;
                    attr.retry_cnt = %d;
                    attr.rnr_retry = %d;
                    attr.sq_psn = %s
                    attr.max_rd_atomic = %d;
                    %s""".formatted(parameter("timeout").asInt(), parameter("retry_cnt").asInt(),
                    parameter("rnr_retry").asInt(), sqPsnC(session), parameter("max_rd_atomic").asInt(),
                    maskC());
        }
    }
}
