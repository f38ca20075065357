package org.rdmalab.ibverbs;

import static org.rdmalab.ibverbs.StructField.*;

import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import jnr.ffi.Pointer;
import org.rdmalab.verbs.CompletionChannel;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.DeviceAttributes;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.GidType;
import org.rdmalab.verbs.LinkLayer;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.PortAttributes;
import org.rdmalab.verbs.PortState;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.ResourceNode;

/**
 * An opened native device ({@code struct ibv_context *}). Verbs run on the caller's thread;
 * closing closes every child first (QP, MR, CQ, PD, completion channel), then
 * {@code ibv_close_device}.
 */
final class NativeContext extends ResourceNode implements Context {

    private static final Logger LOG = Logger.getLogger(NativeContext.class.getName());
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final Native library;
    private final NativeDevice device;
    private final Pointer context;
    private final OpsTable ops;
    private final Map<Long, NativeCompletionQueue> queuesByAddress = new ConcurrentHashMap<>();

    NativeContext(Native library, NativeDevice device, Pointer context) {
        super(null, Kind.CONTEXT);
        this.library = library;
        this.device = device;
        this.context = context;
        this.ops = new OpsTable(context);
    }

    Native library() {
        return library;
    }

    OpsTable ops() {
        return ops;
    }

    Pointer pointer() {
        return context;
    }

    /** Where the kernel lists a port's counters: {@code <this>/<device>/ports/<port>/hw_counters}. */
    static final java.nio.file.Path SYSFS_INFINIBAND = java.nio.file.Path.of("/sys/class/infiniband");

    /**
     * The port's hardware counters as the kernel keeps them ({@code rdma statistic}, rxe's
     * {@code hw_counters}: rcvd_pkts, sent_pkts, ack_deferred, ...), by name; empty when the
     * device has none there. libibverbs has no verb for them.
     */
    @Override
    public Map<String, Long> queryCounters() {
        return readCounters(SYSFS_INFINIBAND.resolve(device.name()).resolve("ports").resolve("1")
                .resolve("hw_counters"));
    }

    /** Every file in {@code folder} holding one number (but lifespan), by file name, in name order. */
    static Map<String, Long> readCounters(java.nio.file.Path folder) {
        Map<String, Long> counters = new java.util.TreeMap<>();
        if (!java.nio.file.Files.isDirectory(folder)) {
            return counters;
        }
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(folder)) {
            for (java.nio.file.Path file : (Iterable<java.nio.file.Path>) files::iterator) {
                if (file.getFileName().toString().equals("lifespan")) {
                    continue; // how often the kernel refreshes them (ms), not a counter
                }
                try {
                    String text = java.nio.file.Files.readString(file, StandardCharsets.US_ASCII).trim();
                    counters.put(file.getFileName().toString(), Long.parseLong(text));
                } catch (java.io.IOException | NumberFormatException e) {
                    // not a counter (lifespan is writable, a folder, an unreadable file): skip it
                }
            }
        } catch (java.io.IOException e) {
            LOG.log(Level.FINE, "cannot list " + folder, e);
        }
        return counters;
    }

    @Override
    public Device device() {
        return device;
    }

    /** {@code ibv_query_device}. */
    @Override
    public DeviceAttributes queryDevice() throws VerbsException {
        ensureOpen();
        try (NativeMemory memory = NativeMemory.allocate(library.runtime, StructSize.DEVICE_ATTR.size)) {
            Pointer attr = memory.pointer();
            int rc = library.verbs.ibv_query_device(context, attr);
            int saved = library.lastError();
            if (rc != 0) {
                throw failure("ibv_query_device", rc, saved, "could not query " + device.name());
            }
            byte[] firmware = new byte[DEVICE_ATTR_FW_VER.width];
            attr.get(DEVICE_ATTR_FW_VER.offset, firmware, 0, firmware.length);
            int end = 0;
            while (end < firmware.length && firmware[end] != 0) {
                end++;
            }
            return new DeviceAttributes(
                    new String(firmware, 0, end, StandardCharsets.US_ASCII),
                    bigEndian(DEVICE_ATTR_NODE_GUID.getLong(attr)),
                    bigEndian(DEVICE_ATTR_SYS_IMAGE_GUID.getLong(attr)),
                    DEVICE_ATTR_MAX_MR_SIZE.getLong(attr),
                    DEVICE_ATTR_VENDOR_ID.getInt(attr),
                    DEVICE_ATTR_VENDOR_PART_ID.getInt(attr),
                    DEVICE_ATTR_HW_VER.getInt(attr),
                    DEVICE_ATTR_MAX_QP.getInt(attr),
                    DEVICE_ATTR_MAX_QP_WR.getInt(attr),
                    DEVICE_ATTR_MAX_SGE.getInt(attr),
                    DEVICE_ATTR_MAX_CQ.getInt(attr),
                    DEVICE_ATTR_MAX_CQE.getInt(attr),
                    DEVICE_ATTR_MAX_MR.getInt(attr),
                    DEVICE_ATTR_MAX_PD.getInt(attr),
                    DEVICE_ATTR_MAX_QP_RD_ATOM.getInt(attr),
                    DEVICE_ATTR_MAX_QP_INIT_RD_ATOM.getInt(attr),
                    DEVICE_ATTR_ATOMIC_CAP.getInt(attr),
                    DEVICE_ATTR_PHYS_PORT_CNT.getInt(attr));
        }
    }

    /** {@code ibv_query_port}, through the exported symbol into a zeroed 52-byte {@code ibv_port_attr}. */
    @Override
    public PortAttributes queryPort(int port) throws VerbsException {
        ensureOpen();
        checkPortNumber("ibv_query_port", port);
        try (NativeMemory memory = NativeMemory.allocate(library.runtime, StructSize.PORT_ATTR.size)) {
            Pointer attr = memory.pointer();
            int rc = library.verbs.ibv_query_port(context, (byte) port, attr);
            int saved = library.lastError();
            if (rc != 0) {
                throw failure("ibv_query_port", rc, saved, "could not query port " + port + " of " + device.name());
            }
            return new PortAttributes(
                    PortState.of(PORT_ATTR_STATE.getInt(attr)),
                    mtu(PORT_ATTR_MAX_MTU.getInt(attr)),
                    mtu(PORT_ATTR_ACTIVE_MTU.getInt(attr)),
                    PORT_ATTR_GID_TBL_LEN.getInt(attr),
                    PORT_ATTR_PORT_CAP_FLAGS.getInt(attr),
                    Integer.toUnsignedLong(PORT_ATTR_MAX_MSG_SZ.getInt(attr)),
                    PORT_ATTR_PKEY_TBL_LEN.getInt(attr),
                    PORT_ATTR_LID.getInt(attr),
                    PORT_ATTR_SM_LID.getInt(attr),
                    PORT_ATTR_ACTIVE_WIDTH.getInt(attr),
                    PORT_ATTR_ACTIVE_SPEED.getInt(attr),
                    PORT_ATTR_PHYS_STATE.getInt(attr),
                    LinkLayer.of(PORT_ATTR_LINK_LAYER.getInt(attr)));
        }
    }

    /** {@code ibv_query_gid_ex} (the exported {@code _ibv_query_gid_ex}): ENODATA for an empty slot. */
    @Override
    public GidEntry queryGidEntry(int port, int index) throws VerbsException {
        ensureOpen();
        checkPortNumber("ibv_query_gid_ex", port);
        if (index < 0) {
            throw new VerbsException("ibv_query_gid_ex", Errno.EINVAL, "GID index " + index + " is negative");
        }
        try (NativeMemory memory = NativeMemory.allocate(library.runtime, StructSize.GID_ENTRY.size)) {
            Pointer entry = memory.pointer();
            int rc = library.verbs._ibv_query_gid_ex(context, port, index, entry, 0, StructSize.GID_ENTRY.size);
            int saved = library.lastError();
            if (rc != 0) {
                int errno = Native.errnoOf(rc, saved);
                String detail = errno == Errno.ENODATA.value() ? "GID index " + index + " of port " + port + " is empty"
                        : "could not read GID index " + index + " of port " + port;
                throw new VerbsException("ibv_query_gid_ex", errno, detail, null);
            }
            byte[] raw = new byte[16];
            entry.get(GID_ENTRY_GID.offset, raw, 0, raw.length);
            Gid gid = Gid.of(raw);
            int ifindex = GID_ENTRY_NDEV_IFINDEX.getInt(entry);
            String ip = gid.isIpv4Mapped() ? gid.ipv4().getHostAddress() : "";
            return new GidEntry(GID_ENTRY_GID_INDEX.getInt(entry), GID_ENTRY_PORT_NUM.getInt(entry), gid,
                    GidType.of(GID_ENTRY_GID_TYPE.getInt(entry)), netdevName(ifindex), ip);
        }
    }

    private static String netdevName(int ifindex) {
        if (ifindex <= 0) {
            return "";
        }
        try {
            NetworkInterface netdev = NetworkInterface.getByIndex(ifindex);
            return netdev == null ? "" : netdev.getName();
        } catch (SocketException e) {
            return "";
        }
    }

    private static void checkPortNumber(String verb, int port) throws VerbsException {
        if (port < 1 || port > 255) {
            throw new VerbsException(verb, Errno.EINVAL, "port " + port + " is outside 1..255 (ports count from 1)");
        }
    }

    private static Mtu mtu(int value) {
        return value >= 1 && value <= 5 ? Mtu.of(value) : Mtu.MTU_256;
    }

    static long bigEndian(long value) {
        return LITTLE_ENDIAN ? Long.reverseBytes(value) : value;
    }

    static int bigEndian(int value) {
        return LITTLE_ENDIAN ? Integer.reverseBytes(value) : value;
    }

    /** {@code ibv_alloc_pd}. */
    @Override
    public ProtectionDomain allocatePd() throws VerbsException {
        ensureOpen();
        Pointer pd = library.verbs.ibv_alloc_pd(context);
        int saved = library.lastError();
        if (pd == null) {
            throw failure("ibv_alloc_pd", -1, saved, "could not allocate a protection domain on " + device.name());
        }
        return new NativeProtectionDomain(this, pd);
    }

    /** {@code ibv_create_comp_channel}. */
    @Override
    public CompletionChannel createCompletionChannel() throws VerbsException {
        ensureOpen();
        Pointer channel = library.verbs.ibv_create_comp_channel(context);
        int saved = library.lastError();
        if (channel == null) {
            throw failure("ibv_create_comp_channel", -1, saved, "could not create a completion channel");
        }
        return new NativeCompletionChannel(this, channel);
    }

    /** {@code ibv_create_cq}; the capacity is what the provider granted ({@code cq->cqe}). */
    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) throws VerbsException {
        ensureOpen();
        NativeCompletionChannel nativeChannel = null;
        if (channel != null) {
            if (!(channel instanceof NativeCompletionChannel c) || c.context() != this) {
                throw new VerbsException("ibv_create_cq", Errno.EINVAL, "the completion channel belongs to another context");
            }
            nativeChannel = c;
        }
        Pointer cq = library.verbs.ibv_create_cq(context, cqe, null,
                nativeChannel == null ? null : nativeChannel.pointer(), compVector);
        int saved = library.lastError();
        if (cq == null) {
            throw failure("ibv_create_cq", -1, saved, "could not create a CQ of " + cqe + " entries on comp_vector "
                    + compVector);
        }
        NativeCompletionQueue queue = new NativeCompletionQueue(this, cq, nativeChannel);
        queuesByAddress.put(cq.address(), queue);
        return queue;
    }

    /** The CQ object of a native {@code ibv_cq *}, or null. */
    NativeCompletionQueue queueAt(long address) {
        return queuesByAddress.get(address);
    }

    void forget(NativeCompletionQueue queue) {
        queuesByAddress.remove(queue.pointer().address(), queue);
    }

    /** A VerbsException for a failed call: the verb, its errno and a sentence. */
    static VerbsException failure(String verb, int returned, int savedErrno, String detail) {
        return new VerbsException(verb, Native.errnoOf(returned, savedErrno), detail, null);
    }

    /** Logs a failed destroy verb once; close() cannot throw. */
    static void logDestroyFailure(String verb, int returned, int savedErrno) {
        LOG.log(Level.WARNING, failure(verb, returned, savedErrno, "the resource may leak").getMessage());
    }

    @Override
    protected void destroy() {
        int rc = library.verbs.ibv_close_device(context);
        int saved = library.lastError();
        if (rc != 0) {
            logDestroyFailure("ibv_close_device", rc, saved);
        }
        queuesByAddress.clear();
    }
}
