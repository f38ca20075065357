package org.rdmalab.lab;

import java.util.ArrayList;
import java.util.List;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.BitFlag;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpInitAttributes;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.ScatterGatherElement;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WrOpcode;

/**
 * The arguments of a verbs call in one line for the verbs log, with C's field and constant names:
 * {@code pd 0x1, addr 0x00007f..., length 11, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE}.
 */
final class VerbArgs {

    private VerbArgs() {
    }

    /** {@code ibv_reg_mr(pd, addr, length, access)}. */
    static String regMr(MemoryRegion mr) {
        return String.format("pd 0x%x, addr 0x%016x, length %d, %s", mr.pd().handle(), mr.address(), mr.length(),
                access(mr.accessFlags()));
    }

    /** {@code ibv_create_qp(pd, &qp_init_attr)}. */
    static String createQp(int pdHandle, QpInitAttributes init) {
        return String.format("pd 0x%x, {qp_type %s, sq_sig_all %d, cap {max_send_wr %d, max_recv_wr %d,"
                        + " max_send_sge %d, max_recv_sge %d, max_inline_data %d}}", pdHandle, init.type().cName(),
                init.sqSigAll() ? 1 : 0, init.capabilities().maxSendWr(), init.capabilities().maxRecvWr(),
                init.capabilities().maxSendSge(), init.capabilities().maxRecvSge(),
                init.capabilities().maxInlineData());
    }

    /** {@code ibv_modify_qp(qp, &attr, mask)}: the attributes the mask names, then the mask. */
    static String modifyQp(QueuePair qp, QpAttributes attr, int mask) {
        List<String> fields = new ArrayList<>();
        if (has(mask, QpAttrMask.STATE)) {
            fields.add("qp_state " + attr.state().cName());
        }
        if (has(mask, QpAttrMask.CUR_STATE)) {
            fields.add("cur_qp_state " + attr.currentState().cName());
        }
        if (has(mask, QpAttrMask.ACCESS_FLAGS)) {
            fields.add("qp_access_flags " + access(attr.accessFlags()));
        }
        if (has(mask, QpAttrMask.PKEY_INDEX)) {
            fields.add("pkey_index " + attr.pkeyIndex());
        }
        if (has(mask, QpAttrMask.PORT)) {
            fields.add("port_num " + attr.portNum());
        }
        if (has(mask, QpAttrMask.QKEY)) {
            fields.add(String.format("qkey 0x%x", attr.qkey()));
        }
        if (has(mask, QpAttrMask.AV)) {
            fields.add("ah_attr " + addressVector(attr.addressVector()));
        }
        if (has(mask, QpAttrMask.PATH_MTU)) {
            fields.add("path_mtu " + (attr.pathMtu() == null ? "0" : attr.pathMtu().cName()));
        }
        if (has(mask, QpAttrMask.TIMEOUT)) {
            fields.add(String.format("timeout 0x%x", attr.timeout()));
        }
        if (has(mask, QpAttrMask.RETRY_CNT)) {
            fields.add("retry_cnt " + attr.retryCount());
        }
        if (has(mask, QpAttrMask.RNR_RETRY)) {
            fields.add("rnr_retry " + attr.rnrRetry());
        }
        if (has(mask, QpAttrMask.RQ_PSN)) {
            fields.add(String.format("rq_psn 0x%x", attr.rqPsn()));
        }
        if (has(mask, QpAttrMask.MAX_QP_RD_ATOMIC)) {
            fields.add("max_rd_atomic " + attr.maxRdAtomic());
        }
        if (has(mask, QpAttrMask.MIN_RNR_TIMER)) {
            fields.add(String.format("min_rnr_timer 0x%x", attr.minRnrTimer()));
        }
        if (has(mask, QpAttrMask.SQ_PSN)) {
            fields.add(String.format("sq_psn 0x%x", attr.sqPsn()));
        }
        if (has(mask, QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            fields.add("max_dest_rd_atomic " + attr.maxDestRdAtomic());
        }
        if (has(mask, QpAttrMask.DEST_QPN)) {
            fields.add(String.format("dest_qp_num 0x%x", attr.destQpNum()));
        }
        String mask0 = mask == 0 ? "0" : BitFlag.cExpression(QpAttrMask.class, mask);
        return String.format("qp 0x%x, {%s}, %s", qp.qpNum(), String.join(", ", fields), mask0);
    }

    private static String addressVector(AddressVector av) {
        if (av == null) {
            return "{}";
        }
        StringBuilder text = new StringBuilder("{dlid ").append(av.dlid()).append(", sl ").append(av.serviceLevel())
                .append(", src_path_bits ").append(av.srcPathBits()).append(", port_num ").append(av.portNum());
        if (av.grh() == null) {
            text.append(", is_global 0");
        } else {
            text.append(", is_global 1, grh {dgid ").append(av.grh().dgid()).append(", sgid_index ")
                    .append(av.grh().sgidIndex()).append(", hop_limit ").append(av.grh().hopLimit())
                    .append(", traffic_class ").append(av.grh().trafficClass()).append(", flow_label ")
                    .append(av.grh().flowLabel()).append('}');
        }
        return text.append('}').toString();
    }

    /** {@code ibv_post_send(qp, wr, &bad_wr)} of one WR. */
    static String postSend(QueuePair qp, SendWorkRequest wr) {
        StringBuilder text = new StringBuilder(String.format("qp 0x%x, {wr_id %d, opcode %s, send_flags %s, %s",
                qp.qpNum(), wr.wrId(), wr.opcode().cName(),
                wr.sendFlags() == 0 ? "0" : BitFlag.cExpression(SendFlag.class, wr.sendFlags()), sgList(wr.sgList())));
        if (wr.opcode().hasImmediate()) {
            text.append(String.format(", imm_data 0x%x", wr.immData()));
        }
        if (wr.opcode().isAtomic()) {
            text.append(String.format(", wr.atomic {remote_addr 0x%x, rkey 0x%x, compare_add %d", wr.remoteAddress(),
                    wr.rkey(), wr.compareAdd()));
            if (wr.opcode() == WrOpcode.ATOMIC_CMP_AND_SWP) {
                text.append(", swap ").append(wr.swap());
            }
            text.append('}');
        } else if (wr.opcode() != WrOpcode.SEND && wr.opcode() != WrOpcode.SEND_WITH_IMM) {
            text.append(String.format(", wr.rdma {remote_addr 0x%x, rkey 0x%x}", wr.remoteAddress(), wr.rkey()));
        }
        return text.append('}').toString();
    }

    /** {@code ibv_post_recv(qp, wr, &bad_wr)}: the first WR and how many. */
    static String postRecv(QueuePair qp, List<ReceiveWorkRequest> requests) {
        ReceiveWorkRequest first = requests.get(0);
        String wr = String.format("{wr_id %d, %s}", first.wrId(), sgList(first.sgList()));
        return String.format("qp 0x%x, %s", qp.qpNum(), requests.size() == 1 ? wr
                : requests.size() + " WRs like " + wr);
    }

    private static String sgList(List<ScatterGatherElement> list) {
        List<String> sges = new ArrayList<>();
        for (ScatterGatherElement sge : list) {
            sges.add(String.format("{addr 0x%x, length %d, lkey 0x%x}", sge.address(),
                    Integer.toUnsignedLong(sge.length()), sge.lkey()));
        }
        return "sg_list " + String.join(", ", sges) + ", num_sge " + list.size();
    }

    private static String access(int flags) {
        return flags == 0 ? "0" : BitFlag.cExpression(AccessFlag.class, flags);
    }

    private static boolean has(int mask, QpAttrMask flag) {
        return (mask & flag.value()) != 0;
    }
}
