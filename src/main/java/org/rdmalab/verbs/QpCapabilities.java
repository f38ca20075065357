package org.rdmalab.verbs;

/**
 * {@code struct ibv_qp_cap}.
 *
 * @param maxSendWr send queue depth
 * @param maxRecvWr receive queue depth
 * @param maxSendSge SGEs per send WR
 * @param maxRecvSge SGEs per receive WR
 * @param maxInlineData largest inline payload
 */
public record QpCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {

    /** The seed's capabilities: one WR and one SGE each way, no inline data. */
    public static QpCapabilities seed() {
        return new QpCapabilities(1, 1, 1, 1, 0);
    }
}
