package org.rdmalab.verbs;

import java.util.Objects;

/**
 * {@code struct ibv_qp_init_attr}.
 *
 * @param type the transport (RC, UC, UD)
 * @param sendCq the CQ for send completions
 * @param recvCq the CQ for receive completions
 * @param capabilities queue sizes
 * @param sqSigAll when true every send WR completes, signaled or not ({@code sq_sig_all})
 */
public record QpInitAttributes(QpType type, CompletionQueue sendCq, CompletionQueue recvCq,
                               QpCapabilities capabilities, boolean sqSigAll) {

    public QpInitAttributes {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(sendCq, "sendCq");
        Objects.requireNonNull(recvCq, "recvCq");
        Objects.requireNonNull(capabilities, "capabilities");
    }
}
