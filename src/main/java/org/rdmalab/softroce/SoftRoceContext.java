package org.rdmalab.softroce;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import org.rdmalab.verbs.CompletionChannel;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.DeviceAttributes;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.FaultControl;
import org.rdmalab.verbs.FaultSettings;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.OneShotFault;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.PacketObservable;
import org.rdmalab.verbs.PortAttributes;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.ResourceNode;

/**
 * An opened software device. Opening binds nothing: the transport (UDP socket and its thread) is
 * started when the first QP is created and stopped when the context closes.
 */
final class SoftRoceContext extends ResourceNode implements Context, PacketObservable, FaultControl {

    /** Where registered memory appears to live: a user-space address like a Linux heap mapping. */
    private static final long VIRTUAL_BASE = 0x0000_7f3a_5c40_0000L;

    private final SoftRoceDevice device;
    private final AtomicLongArray counters = new AtomicLongArray(Counter.values().length);
    private final CopyOnWriteArrayList<Consumer<PacketEvent>> listeners = new CopyOnWriteArrayList<>();
    private final Map<Integer, SoftMemoryRegion> regionsByIndex = new ConcurrentHashMap<>();
    private final AtomicInteger nextRegionIndex = new AtomicInteger(1);
    private final AtomicInteger nextKeyByte = new AtomicInteger(0x3c);
    private final AtomicLong nextVirtualAddress = new AtomicLong(VIRTUAL_BASE);
    private final AtomicInteger nextPdHandle = new AtomicInteger(1);
    private final AtomicInteger nextCqHandle = new AtomicInteger(1);
    private final AtomicInteger nextQpNumber = new AtomicInteger(0x11);
    private SoftTransport transport;
    /**
     * The random faults in force, and how many changes made them, so the transport starts its draws
     * over on each; written under this context's lock, read by the transport loop without it.
     */
    private volatile Faults faults;
    /** One-shot faults armed and not yet handed to the transport. */
    private final java.util.concurrent.ConcurrentLinkedQueue<OneShotFault> armed =
            new java.util.concurrent.ConcurrentLinkedQueue<>();

    SoftRoceContext(SoftRoceDevice device) {
        super(null, Kind.CONTEXT);
        this.device = device;
        this.faults = new Faults(FaultSettings.parse(device.options().faults()), 0);
    }

    /** Settings with the number of the change that made them. */
    private record Faults(FaultSettings settings, long version) {
    }

    @Override
    public FaultSettings faults() {
        return faults.settings();
    }

    @Override
    public synchronized void setFaults(FaultSettings settings) {
        java.util.Objects.requireNonNull(settings, "settings");
        Faults now = faults;
        if (isClosed() || settings.equals(now.settings())) {
            return;
        }
        faults = new Faults(settings, now.version() + 1);
        faultsChanged();
    }

    @Override
    public synchronized void arm(OneShotFault fault) {
        java.util.Objects.requireNonNull(fault, "fault");
        if (isClosed() || !fault.waiting()) {
            return;
        }
        armed.add(fault);
        faultsChanged();
    }

    /** Tells a started transport, on its loop (under the lock, as {@link #transport} starts it). */
    private void faultsChanged() {
        SoftTransport started = transport;
        if (started != null) {
            started.loop().execute(started::faultsChanged);
        }
    }

    /** Hands the faults in force and the one-shot faults armed since the last call to {@code link} (transport loop). */
    void faultsTo(FaultyLink link) {
        Faults now = faults;
        link.settings(now.settings(), now.version());
        for (OneShotFault shot = armed.poll(); shot != null; shot = armed.poll()) {
            link.arm(shot);
        }
    }

    @Override
    public Device device() {
        return device;
    }

    SoftRoceDevice softDevice() {
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        ensureOpen();
        return device.profile().deviceAttributes();
    }

    @Override
    public PortAttributes queryPort(int port) throws VerbsException {
        ensureOpen();
        checkPort("ibv_query_port", port);
        return device.profile().portAttributes();
    }

    @Override
    public GidEntry queryGidEntry(int port, int index) throws VerbsException {
        ensureOpen();
        checkPort("ibv_query_gid_ex", port);
        if (index < 0 || index >= SoftRoceProfile.GID_TABLE_LENGTH) {
            throw new VerbsException("ibv_query_gid_ex", Errno.EINVAL, "GID index " + index + " is outside 0.."
                    + (SoftRoceProfile.GID_TABLE_LENGTH - 1));
        }
        for (GidEntry entry : device.profile().gidTable()) {
            if (entry.index() == index) {
                return entry;
            }
        }
        throw new VerbsException("ibv_query_gid_ex", Errno.ENODATA, "GID index " + index + " is empty");
    }

    private static void checkPort(String verb, int port) throws VerbsException {
        if (port != 1) {
            throw new VerbsException(verb, Errno.EINVAL, "port " + port + " does not exist (the device has port 1)");
        }
    }

    /** The port counters by rxe's hw_counters names, then the device's own drop and fault counters. */
    @Override
    public Map<String, Long> queryCounters() {
        ensureOpen();
        Map<String, Long> values = new LinkedHashMap<>();
        for (Counter counter : Counter.values()) {
            values.put(counter.counterName(), counters.get(counter.ordinal()));
        }
        return values;
    }

    /** One counter's value. */
    long counter(Counter counter) {
        return counters.get(counter.ordinal());
    }

    void count(Counter counter) {
        counters.incrementAndGet(counter.ordinal());
    }

    @Override
    public AutoCloseable subscribe(Consumer<PacketEvent> listener) {
        ensureOpen();
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    boolean hasListeners() {
        return !listeners.isEmpty();
    }

    void publish(PacketEvent event) {
        for (Consumer<PacketEvent> listener : listeners) {
            try {
                listener.accept(event);
            } catch (RuntimeException e) {
                java.util.logging.Logger.getLogger(SoftRoceContext.class.getName())
                        .log(java.util.logging.Level.WARNING, "packet listener failed", e);
            }
        }
    }

    /** {@code ibv_alloc_pd}. */
    @Override
    public ProtectionDomain allocatePd() {
        ensureOpen();
        return new SoftProtectionDomain(this, nextPdHandle.getAndIncrement());
    }

    /** {@code ibv_create_comp_channel}. */
    @Override
    public CompletionChannel createCompletionChannel() {
        ensureOpen();
        return new SoftCompletionChannel(this);
    }

    /**
     * {@code ibv_create_cq}: EINVAL when {@code cqe} is outside 1..max_cqe or the channel is
     * foreign. The CQ holds {@code cqe} rounded up to {@code 2^k - 1} entries, as with rxe, and
     * {@link CompletionQueue#capacity()} reports that.
     */
    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) throws VerbsException {
        ensureOpen();
        if (cqe < 1 || cqe > SoftRoceProfile.MAX_CQE) {
            throw new VerbsException("ibv_create_cq", Errno.EINVAL, "cqe " + cqe + " is outside 1.."
                    + SoftRoceProfile.MAX_CQE + " (the device's max_cqe)");
        }
        if (compVector != 0) {
            throw new VerbsException("ibv_create_cq", Errno.EINVAL, "comp_vector " + compVector
                    + " does not exist (the device has one completion vector, 0)");
        }
        SoftCompletionChannel softChannel = null;
        if (channel != null) {
            if (!(channel instanceof SoftCompletionChannel c) || c.context() != this) {
                throw new VerbsException("ibv_create_cq", Errno.EINVAL,
                        "the completion channel belongs to another context");
            }
            softChannel = c;
        }
        // rxe (rxe_cq_from_init): the queue holds 2^k - 1 entries, at least cqe, and cq->cqe says how many.
        return new SoftCompletionQueue(this, SoftRoceProfile.queueDepth(cqe), softChannel,
                nextCqHandle.getAndIncrement());
    }

    // ---- memory regions ------------------------------------------------------------------

    /** Allocates an index, a fresh key byte and a page-aligned virtual range for a new region. */
    synchronized int[] reserveRegionKey() {
        int index = nextRegionIndex.getAndIncrement();
        if (index > 0xFFFFFF) {
            return null;
        }
        int keyByte = nextKeyByte.getAndAdd(0x1d) & 0xff;
        return new int[] {index, (index << 8) | keyByte};
    }

    long reserveVirtualRange(int length) {
        long pages = ((long) Math.max(length, 1) + 4095) / 4096 + 1; // a guard page between regions
        return nextVirtualAddress.getAndAdd(pages * 4096);
    }

    void addRegion(SoftMemoryRegion region) {
        regionsByIndex.put(region.lkey() >>> 8, region);
    }

    void removeRegion(SoftMemoryRegion region) {
        regionsByIndex.remove(region.lkey() >>> 8, region);
    }

    /** The live region whose lkey/rkey is {@code key}, or null. */
    SoftMemoryRegion regionByKey(int key) {
        SoftMemoryRegion region = regionsByIndex.get(key >>> 8);
        return region != null && region.lkey() == key && !region.isClosed() ? region : null;
    }

    /** The live region holding {@code [address, address + length)}, or null (inline data). */
    SoftMemoryRegion regionByAddress(long address, int length) {
        for (SoftMemoryRegion region : regionsByIndex.values()) {
            if (!region.isClosed() && region.contains(address, length)) {
                return region;
            }
        }
        return null;
    }

    int allocateQpNumber() {
        return nextQpNumber.getAndIncrement() & 0xFFFFFF;
    }

    // ---- transport ------------------------------------------------------------------------

    /** The transport, started (socket bound) on first use by {@code verb}. */
    synchronized SoftTransport transport(String verb) throws VerbsException {
        ensureOpen();
        if (transport == null) {
            transport = SoftTransport.start(this, verb);
        }
        return transport;
    }

    /** The transport if started, else null. */
    synchronized SoftTransport transportIfStarted() {
        return transport;
    }

    @Override
    protected void destroy() {
        SoftTransport started;
        synchronized (this) {
            started = transport;
            transport = null;
        }
        if (started != null) {
            started.close();
        }
        listeners.clear();
        regionsByIndex.clear();
    }

    List<SoftMemoryRegion> regions() {
        return List.copyOf(regionsByIndex.values());
    }
}
