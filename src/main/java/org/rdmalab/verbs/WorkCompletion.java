package org.rdmalab.verbs;

/**
 * {@code struct ibv_wc}. In an error completion only {@code wrId}, {@code status} and
 * {@code qpNum} are meaningful, as in verbs.
 *
 * @param wrId the work request's id
 * @param status the outcome
 * @param opcode what completed
 * @param vendorError {@code vendor_err}
 * @param byteLength bytes received (receive side) or transferred
 * @param immData immediate data when {@link WcFlag#WITH_IMM} is set (host order)
 * @param qpNum the local QP
 * @param srcQp the remote QP (UD)
 * @param wcFlags {@link WcFlag} bits
 */
public record WorkCompletion(long wrId, WcStatus status, WcOpcode opcode, int vendorError, int byteLength,
                             int immData, int qpNum, int srcQp, int wcFlags) {

    /** True when the status is {@link WcStatus#SUCCESS}. */
    public boolean isSuccess() {
        return status == WcStatus.SUCCESS;
    }

    /** An error completion: only wr_id, status and qp_num matter. */
    public static WorkCompletion error(long wrId, WcStatus status, WcOpcode opcode, int qpNum) {
        return new WorkCompletion(wrId, status, opcode, 0, 0, 0, qpNum, 0, 0);
    }

    /** "wr_id 1 IBV_WC_SUCCESS RDMA_WRITE 11 bytes" style summary used by the CLI. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder()
                .append("wr_id ").append(wrId)
                .append(' ').append(status.cName());
        if (status == WcStatus.SUCCESS) {
            text.append(" opcode ").append(opcode.cName()).append(" byte_len ").append(Integer.toUnsignedString(byteLength));
            if (WcFlag.has(wcFlags, WcFlag.WITH_IMM)) {
                text.append(String.format(" imm_data 0x%08x", immData));
            }
        } else {
            text.append(" (").append(status.text()).append(')');
        }
        return text.append(String.format(" qp 0x%x", qpNum)).toString();
    }
}
