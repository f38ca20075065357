package org.rdmalab.softroce;

import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpInitAttributes;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.ResourceNode;

/** {@code struct ibv_pd} of the software device. */
final class SoftProtectionDomain extends ResourceNode implements ProtectionDomain {

    private static final int KNOWN_ACCESS = AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC, AccessFlag.MW_BIND, AccessFlag.ZERO_BASED,
            AccessFlag.ON_DEMAND, AccessFlag.HUGETLB, AccessFlag.RELAXED_ORDERING);

    private final SoftRoceContext context;
    private final int handle;

    SoftProtectionDomain(SoftRoceContext context, int handle) {
        super(context, Kind.PROTECTION_DOMAIN);
        this.context = context;
        this.handle = handle;
    }

    @Override
    public Context context() {
        return context;
    }

    SoftRoceContext softContext() {
        return context;
    }

    @Override
    public int handle() {
        return handle;
    }

    /**
     * {@code malloc} + {@code ibv_reg_mr}: EINVAL for unknown access bits or remote write/atomic
     * without local write (the kernel's rule), EOPNOTSUPP for on-demand paging, ENOMEM when the
     * memory cannot be allocated.
     */
    @Override
    public MemoryRegion registerMemory(int length, int accessFlags) throws VerbsException {
        ensureOpen();
        if (length < 0) {
            throw new IllegalArgumentException("length " + length + " is negative");
        }
        if ((accessFlags & ~KNOWN_ACCESS) != 0) {
            throw new VerbsException("ibv_reg_mr", Errno.EINVAL, String.format("access flags 0x%x hold unknown bits 0x%x",
                    accessFlags, accessFlags & ~KNOWN_ACCESS));
        }
        boolean needsLocalWrite = AccessFlag.has(accessFlags, AccessFlag.REMOTE_WRITE)
                || AccessFlag.has(accessFlags, AccessFlag.REMOTE_ATOMIC);
        if (needsLocalWrite && !AccessFlag.has(accessFlags, AccessFlag.LOCAL_WRITE)) {
            throw new VerbsException("ibv_reg_mr", Errno.EINVAL, "access " + AccessFlag.names(accessFlags)
                    + ": REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE too");
        }
        if (AccessFlag.has(accessFlags, AccessFlag.ON_DEMAND)) {
            throw new VerbsException("ibv_reg_mr", Errno.EOPNOTSUPP, "the software device has no on-demand paging");
        }
        int[] key = context.reserveRegionKey();
        if (key == null) {
            throw new VerbsException("ibv_reg_mr", Errno.ENOMEM, "the device's memory region table is full");
        }
        byte[] memory;
        try {
            memory = new byte[length];
        } catch (OutOfMemoryError e) {
            throw new VerbsException("ibv_reg_mr", Errno.ENOMEM, "cannot allocate " + length + " bytes");
        }
        long address = context.reserveVirtualRange(length);
        return new SoftMemoryRegion(this, memory, address, key[1], accessFlags);
    }

    /** {@code ibv_create_qp}; see {@link SoftQueuePair#create}. */
    @Override
    public QueuePair createQp(QpInitAttributes attributes) throws VerbsException {
        ensureOpen();
        return SoftQueuePair.create(this, attributes);
    }

    @Override
    protected void destroy() {
        // The PD owns no resource of its own; its QPs and MRs are closed first.
    }
}
