package org.rdmalab.softroce;

import java.util.List;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.wire.Psn;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.GidType;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpTransitions;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.VerbsException;

/**
 * What a QP accepts before anything changes, apart from the QP, as rxe keeps its checks apart in
 * {@code rxe_qp.c}: {@code ibv_create_qp}'s capabilities and CQs ({@code rxe_qp_chk_init},
 * {@code rxe_qp_chk_cap}) and {@code ibv_modify_qp}'s transition and attribute values
 * ({@code rxe_qp_chk_attr}, {@code rxe_av_chk_attr}). Every refusal is EINVAL with a sentence
 * naming the attribute and what it may be; nothing is changed by a check.
 *
 * <p>Threads: stateless; called on the caller's thread before a QP hands its work to the loop.
 */
final class QpAttributeChecks {

    private static final int QP_ACCESS_BITS = AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC, AccessFlag.MW_BIND);

    private QpAttributeChecks() {
    }

    /**
     * The requested capabilities within the device's limits ({@code rxe_qp_chk_cap}): work requests,
     * SGEs and inline data.
     */
    static void checkCapabilities(QpCapabilities cap) throws VerbsException {
        checkCap(cap.maxSendWr(), SoftRoceProfile.MAX_QP_WR, "max_send_wr");
        checkCap(cap.maxRecvWr(), SoftRoceProfile.MAX_QP_WR, "max_recv_wr");
        checkCap(cap.maxSendSge(), SoftRoceProfile.MAX_SGE, "max_send_sge");
        checkCap(cap.maxRecvSge(), SoftRoceProfile.MAX_SGE, "max_recv_sge");
        checkCap(cap.maxInlineData(), SoftRoceProfile.MAX_INLINE_DATA, "max_inline_data");
    }

    private static void checkCap(int value, int limit, String name) throws VerbsException {
        if (value < 0 || value > limit) {
            throw new VerbsException("ibv_create_qp", Errno.EINVAL, name + " " + value + " is outside 0.." + limit
                    + " (the device's limit)");
        }
    }

    /**
     * The CQ {@code cq} as this device's own ({@code rxe_qp_chk_init}'s CQ checks): EINVAL for a CQ of
     * another device context; a closed one is misuse.
     */
    static SoftCompletionQueue ownCq(SoftRoceContext context, CompletionQueue cq, String name)
            throws VerbsException {
        if (!(cq instanceof SoftCompletionQueue soft) || soft.context() != context) {
            throw new VerbsException("ibv_create_qp", Errno.EINVAL, name + " belongs to another device context");
        }
        if (soft.isClosed()) {
            throw new IllegalStateException(name + " is closed");
        }
        return soft;
    }

    /**
     * The state a modify moves a QP of {@code type} in {@code current} to, checked against the
     * transition table ({@link QpTransitions}: the attributes the transition requires and allows)
     * and the caller's {@code cur_qp_state}.
     */
    static QpState checkTransition(QpType type, QpState current, QpAttributes attr, int mask) throws VerbsException {
        String verb = "ibv_modify_qp";
        QpState target = has(mask, QpAttrMask.STATE) ? attr.state() : current;
        if (target == null || target == QpState.UNKNOWN) {
            throw new VerbsException(verb, Errno.EINVAL, "qp_state " + target + " is not a state a QP can be moved to");
        }
        QpTransitions.Check check = QpTransitions.check(type, current, target, mask);
        if (!check.valid()) {
            throw new VerbsException(verb, Errno.EINVAL, check.explanation());
        }
        if (has(mask, QpAttrMask.CUR_STATE) && attr.currentState() != current) {
            throw new VerbsException(verb, Errno.EINVAL, "cur_qp_state " + attr.currentState()
                    + " does not match the QP's state " + current);
        }
        return target;
    }

    static boolean has(int mask, QpAttrMask bit) {
        return (mask & bit.value()) != 0;
    }

    /**
     * Checks the values of the masked attributes ({@code rxe_qp_chk_attr}: port, P_Key index, access
     * flags, path MTU against the port's active MTU, the address vector, 24-bit PSNs and QPN, and
     * each timer and count in its range) on the device that {@code profile} describes.
     *
     * @return the peer's IPv4 address when the mask has AV, otherwise 0
     * @throws VerbsException EINVAL with a sentence naming the attribute
     */
    static int checkValues(SoftRoceProfile profile, QpAttributes attr, int mask) throws VerbsException {
        String verb = "ibv_modify_qp";
        if (has(mask, QpAttrMask.PORT) && attr.portNum() != 1) {
            throw new VerbsException(verb, Errno.EINVAL, "port_num " + attr.portNum() + " does not exist (the device has port 1)");
        }
        if (has(mask, QpAttrMask.PKEY_INDEX) && attr.pkeyIndex() != 0) {
            throw new VerbsException(verb, Errno.EINVAL, "pkey_index " + attr.pkeyIndex()
                    + " is outside the P_Key table (one entry, index 0, P_Key 0xffff)");
        }
        if (has(mask, QpAttrMask.ACCESS_FLAGS) && (attr.accessFlags() & ~QP_ACCESS_BITS) != 0) {
            throw new VerbsException(verb, Errno.EINVAL, String.format("qp_access_flags 0x%x hold bits a QP does not use "
                    + "(valid: LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC, MW_BIND)", attr.accessFlags()));
        }
        if (has(mask, QpAttrMask.PATH_MTU)) {
            if (attr.pathMtu() == null) {
                throw new VerbsException(verb, Errno.EINVAL, "path_mtu is not set");
            }
            int active = profile.portAttributes().activeMtu().bytes();
            if (attr.pathMtu().bytes() > active) {
                throw new VerbsException(verb, Errno.EINVAL, "path_mtu " + attr.pathMtu().cName() + " is above the port's "
                        + "active MTU " + active + " (ibv_query_port's active_mtu); use IBV_MTU_" + active + " or less");
            }
        }
        int peer = 0;
        if (has(mask, QpAttrMask.AV)) {
            peer = checkAddressVector(profile, attr);
        }
        if (has(mask, QpAttrMask.DEST_QPN)) {
            check24(attr.destQpNum(), "dest_qp_num");
        }
        if (has(mask, QpAttrMask.RQ_PSN)) {
            check24(attr.rqPsn(), "rq_psn");
        }
        if (has(mask, QpAttrMask.SQ_PSN)) {
            check24(attr.sqPsn(), "sq_psn");
        }
        if (has(mask, QpAttrMask.TIMEOUT)) {
            checkRange(attr.timeout(), 0, 31, "timeout", " (4.096 µs × 2^timeout; 0 means no retransmission timer)");
        }
        if (has(mask, QpAttrMask.RETRY_CNT)) {
            checkRange(attr.retryCount(), 0, 7, "retry_cnt", "");
        }
        if (has(mask, QpAttrMask.RNR_RETRY)) {
            checkRange(attr.rnrRetry(), 0, 7, "rnr_retry", " (7 means retry forever)");
        }
        if (has(mask, QpAttrMask.MIN_RNR_TIMER)) {
            checkRange(attr.minRnrTimer(), 0, 31, "min_rnr_timer", " (an RNR timer code)");
        }
        if (has(mask, QpAttrMask.MAX_QP_RD_ATOMIC)) {
            checkRange(attr.maxRdAtomic(), 0, SoftRoceProfile.MAX_RD_ATOMIC, "max_rd_atomic",
                    " (the device's max_qp_rd_atom)");
        }
        if (has(mask, QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            checkRange(attr.maxDestRdAtomic(), 0, SoftRoceProfile.MAX_RD_ATOMIC, "max_dest_rd_atomic",
                    " (the device's max_qp_init_rd_atom)");
        }
        return peer;
    }

    /** The address vector's checks ({@code rxe_av_chk_attr} and the GID lookup): RoCE v2 over IPv4 only. */
    private static int checkAddressVector(SoftRoceProfile profile, QpAttributes attr) throws VerbsException {
        String verb = "ibv_modify_qp";
        if (attr.addressVector() == null) {
            throw new VerbsException(verb, Errno.EINVAL, "ah_attr is not set although the mask has AV");
        }
        GlobalRoute grh = attr.addressVector().grh();
        if (grh == null) {
            throw new VerbsException(verb, Errno.EINVAL, "ah_attr.is_global is 0, but RoCE routes by GID: set is_global = 1, "
                    + "grh.sgid_index to a local RoCE v2 GID and grh.dgid to the peer's GID");
        }
        int port = attr.addressVector().portNum();
        if (port != 1 && port != 0) {
            throw new VerbsException(verb, Errno.EINVAL, "ah_attr.port_num " + port + " does not exist (the device has port 1)");
        }
        GidEntry source = null;
        List<GidEntry> table = profile.gidTable();
        for (GidEntry entry : table) {
            if (entry.index() == grh.sgidIndex()) {
                source = entry;
            }
        }
        GidEntry v2 = null;
        for (GidEntry entry : table) {
            if (entry.type() == GidType.ROCE_V2 && entry.gid().isIpv4Mapped()) {
                v2 = entry;
            }
        }
        String hint = v2 == null ? "" : "; use index " + v2.index() + " (" + v2.gid() + ", RoCE v2)";
        if (source == null) {
            throw new VerbsException(verb, Errno.EINVAL, "grh.sgid_index " + grh.sgidIndex()
                    + " is not a populated GID of port 1 (indexes 0.." + (table.size() - 1) + " are)" + hint);
        }
        if (source.type() != GidType.ROCE_V2) {
            throw new VerbsException(verb, Errno.EINVAL, "grh.sgid_index " + grh.sgidIndex() + " is a " + source.type().text()
                    + " GID (" + source.gid() + "); this device speaks RoCE v2 (UDP/IP) only, RoCE v1 (raw Ethernet "
                    + "frames) needs a kernel device" + hint);
        }
        if (!source.gid().isIpv4Mapped()) {
            throw new VerbsException(verb, Errno.EINVAL, "grh.sgid_index " + grh.sgidIndex() + " is the link-local GID "
                    + source.gid() + "; this device sends over IPv4 only" + hint);
        }
        if (grh.dgid() == null || grh.dgid().isZero()) {
            throw new VerbsException(verb, Errno.EINVAL, "grh.dgid is all zeros: put the peer's GID (exchanged out of band) "
                    + "in ah_attr.grh.dgid");
        }
        if (!grh.dgid().isIpv4Mapped()) {
            throw new VerbsException(verb, Errno.EINVAL, "grh.dgid " + grh.dgid() + " is not an IPv4-mapped GID "
                    + "(::ffff:a.b.c.d); this device reaches its peers over IPv4, so use the peer's RoCE v2 IPv4 GID");
        }
        checkRange(grh.hopLimit(), 0, 255, "grh.hop_limit", "");
        checkRange(grh.trafficClass(), 0, 255, "grh.traffic_class", "");
        if (grh.flowLabel() < 0 || grh.flowLabel() > 0xFFFFF) {
            throw new VerbsException(verb, Errno.EINVAL, "grh.flow_label " + grh.flowLabel() + " does not fit in 20 bits");
        }
        return Fabric.toInt(grh.dgid().ipv4());
    }

    private static void check24(int value, String name) throws VerbsException {
        if (value < 0 || value > Psn.MASK) {
            throw new VerbsException("ibv_modify_qp", Errno.EINVAL, name + " " + Integer.toUnsignedString(value)
                    + " (0x" + Integer.toHexString(value) + ") does not fit in 24 bits (0..0xffffff)");
        }
    }

    private static void checkRange(int value, int low, int high, String name, String note) throws VerbsException {
        if (value < low || value > high) {
            throw new VerbsException("ibv_modify_qp", Errno.EINVAL, name + " " + value + " is outside " + low + ".." + high + note);
        }
    }
}
