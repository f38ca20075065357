package org.rdmalab.softroce;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.spi.ResourceNode;

/**
 * {@code struct ibv_mr} over memory the device owns: a Java array standing at a made-up,
 * page-aligned virtual address. lkey and rkey are equal, {@code index << 8 | key byte}, the key byte
 * changing on every registration as NICs do, so a stale rkey is refused.
 *
 * <p>The transport thread reads and writes the array while the application may do the same, as
 * with real memory; 8-byte atomics use the array as little-endian words (the host order of x86).
 */
final class SoftMemoryRegion extends ResourceNode implements MemoryRegion {

    private static final VarHandle BYTES = MethodHandles.arrayElementVarHandle(byte[].class);
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final SoftProtectionDomain pd;
    private final byte[] memory;
    private final long address;
    private final int key;
    private final int accessFlags;

    SoftMemoryRegion(SoftProtectionDomain pd, byte[] memory, long address, int key, int accessFlags) {
        super(pd, Kind.MEMORY_REGION);
        this.pd = pd;
        this.memory = memory;
        this.address = address;
        this.key = key;
        this.accessFlags = accessFlags;
        pd.softContext().addRegion(this);
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    SoftProtectionDomain softPd() {
        return pd;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public int length() {
        return memory.length;
    }

    @Override
    public int lkey() {
        return key;
    }

    @Override
    public int rkey() {
        return key;
    }

    @Override
    public int accessFlags() {
        return accessFlags;
    }

    boolean allows(AccessFlag flag) {
        return AccessFlag.has(accessFlags, flag);
    }

    /** The backing array (transport use). */
    byte[] memory() {
        return memory;
    }

    /** True when {@code [va, va + length)} lies inside the region. */
    boolean contains(long va, long length) {
        return length >= 0 && va >= address && va - address <= memory.length && va - address + length <= memory.length;
    }

    /** The array index of {@code va} (which must be inside). */
    int offsetOf(long va) {
        return (int) (va - address);
    }

    /** Atomic fetch-and-add of the little-endian word at {@code va} (8-aligned); returns the old value. */
    long fetchAdd(long va, long add) {
        return (long) WORDS.getAndAdd(memory, offsetOf(va), add);
    }

    /** Atomic compare-and-swap of the word at {@code va}; returns the old value. */
    long compareSwap(long va, long compare, long swap) {
        return (long) WORDS.compareAndExchange(memory, offsetOf(va), compare, swap);
    }

    @Override
    public byte[] read(int offset, int length) {
        ensureOpen();
        checkRange(offset, length);
        byte[] copy = new byte[length];
        System.arraycopy(memory, offset, copy, 0, length);
        return copy;
    }

    @Override
    public void read(int offset, byte[] into, int intoOffset, int length) {
        ensureOpen();
        checkRange(offset, length);
        Objects.checkFromIndexSize(intoOffset, length, into.length);
        System.arraycopy(memory, offset, into, intoOffset, length);
    }

    /** The byte as the device last wrote it (an acquire read, so a polling loop sees each write). */
    @Override
    public byte readByte(int offset) {
        ensureOpen();
        checkRange(offset, 1);
        return (byte) BYTES.getAcquire(memory, offset);
    }

    @Override
    public void write(int offset, byte[] data) {
        ensureOpen();
        checkRange(offset, data.length);
        System.arraycopy(data, 0, memory, offset, data.length);
    }

    @Override
    public void writeByte(int offset, byte value) {
        ensureOpen();
        checkRange(offset, 1);
        memory[offset] = value;
    }

    private void checkRange(int offset, int length) {
        if (offset < 0 || length < 0 || (long) offset + length > memory.length) {
            throw new IllegalArgumentException("range " + offset + "+" + length + " is outside the " + memory.length
                    + "-byte region");
        }
    }

    /** {@code ibv_dereg_mr}: the key stops working at once. */
    @Override
    protected void destroy() {
        pd.softContext().removeRegion(this);
    }

    @Override
    public String toString() {
        return String.format("MR addr 0x%016x len %d lkey 0x%08x rkey 0x%08x access %s", address, memory.length, key,
                key, AccessFlag.names(accessFlags));
    }
}
