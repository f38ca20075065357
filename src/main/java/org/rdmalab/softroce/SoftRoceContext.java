package org.rdmalab.softroce;

import org.rdmalab.verbs.CompletionChannel;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.DeviceAttributes;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.PortAttributes;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.ResourceNode;

/** An opened software device. Opening binds nothing: the UDP socket is bound when the first QP needs it. */
final class SoftRoceContext extends ResourceNode implements Context {

    private final SoftRoceDevice device;

    SoftRoceContext(SoftRoceDevice device) {
        super(null, Kind.CONTEXT);
        this.device = device;
    }

    @Override
    public Device device() {
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

    @Override
    public ProtectionDomain allocatePd() throws VerbsException {
        throw new VerbsException("ibv_alloc_pd", Errno.EOPNOTSUPP, "the software device has no transport yet");
    }

    @Override
    public CompletionChannel createCompletionChannel() throws VerbsException {
        throw new VerbsException("ibv_create_comp_channel", Errno.EOPNOTSUPP, "the software device has no transport yet");
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) throws VerbsException {
        throw new VerbsException("ibv_create_cq", Errno.EOPNOTSUPP, "the software device has no transport yet");
    }

    @Override
    protected void destroy() {
        // Nothing bound yet.
    }
}
