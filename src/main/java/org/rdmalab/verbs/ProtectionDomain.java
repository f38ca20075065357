package org.rdmalab.verbs;

/** {@code struct ibv_pd}. Closing it closes its QPs, then its MRs. */
public interface ProtectionDomain extends AutoCloseable {

    /** The context it belongs to. */
    Context context();

    /** The kernel-style handle (a small number, for display). */
    int handle();

    /**
     * Allocates {@code length} zeroed bytes of memory the device can reach and registers them
     * ({@code malloc} + {@code ibv_reg_mr}).
     *
     * @param accessFlags {@link AccessFlag} bits
     */
    MemoryRegion registerMemory(int length, int accessFlags) throws VerbsException;

    /** {@code ibv_create_qp}. */
    QueuePair createQp(QpInitAttributes attributes) throws VerbsException;

    /** {@code ibv_dealloc_pd}; idempotent, closes children first. */
    @Override
    void close();
}
