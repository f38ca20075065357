package org.rdmalab.ibverbs;

import static org.rdmalab.ibverbs.StructField.*;

import java.util.Objects;
import jnr.ffi.Pointer;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.spi.ResourceNode;

/**
 * {@code struct ibv_mr *} over native memory this region owns. The memory is freed after
 * {@code ibv_dereg_mr} succeeds; if deregistration fails it is kept (the device may still write it).
 */
final class NativeMemoryRegion extends ResourceNode implements MemoryRegion {

    private final NativeProtectionDomain pd;
    private final Pointer mr;
    private final NativeMemory buffer;
    private final int length;
    private final int accessFlags;
    private final long address;
    private final int lkey;
    private final int rkey;

    NativeMemoryRegion(NativeProtectionDomain pd, Pointer mr, NativeMemory buffer, int length, int accessFlags) {
        super(pd, Kind.MEMORY_REGION);
        this.pd = pd;
        this.mr = mr;
        this.buffer = buffer;
        this.length = length;
        this.accessFlags = accessFlags;
        this.address = MR_ADDR.getLong(mr);
        this.lkey = MR_LKEY.getInt(mr);
        this.rkey = MR_RKEY.getInt(mr);
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public int accessFlags() {
        return accessFlags;
    }

    @Override
    public byte[] read(int offset, int count) {
        check(offset, count);
        byte[] data = new byte[count];
        buffer.get(offset, data, 0, count);
        return data;
    }

    @Override
    public void read(int offset, byte[] into, int intoOffset, int count) {
        check(offset, count);
        Objects.checkFromIndexSize(intoOffset, count, into.length);
        buffer.get(offset, into, intoOffset, count);
    }

    @Override
    public byte readByte(int offset) {
        check(offset, 1);
        return buffer.getByte(offset);
    }

    @Override
    public void write(int offset, byte[] data) {
        check(offset, data.length);
        buffer.put(offset, data);
    }

    /** One byte stored with jffi's Unsafe-backed put, where {@link #write} copies through JNI. */
    @Override
    public void writeByte(int offset, byte value) {
        check(offset, 1);
        buffer.putByte(offset, value);
    }

    private void check(int offset, int count) {
        ensureOpen();
        if (offset < 0 || count < 0 || (long) offset + count > length) {
            throw new IllegalArgumentException("range " + offset + "+" + count + " is outside the " + length
                    + "-byte region");
        }
    }

    @Override
    protected void destroy() {
        Native library = pd.nativeContext().library();
        int rc = library.verbs.ibv_dereg_mr(mr);
        int saved = library.lastError();
        if (rc != 0) {
            NativeContext.logDestroyFailure("ibv_dereg_mr", rc, saved);
            return;
        }
        buffer.close();
    }
}
