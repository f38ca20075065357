package org.rdmalab.softroce;

import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.softroce.net.SimulatedNetwork;
import org.rdmalab.softroce.net.WireSocket;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The software RoCE v2 device: a name, the profile it reports, the options it was listed with
 * (address, UDP port, faults, capture) and the fabric its packets travel on (real UDP, or a
 * {@link SimulatedNetwork} in tests). Opening it binds nothing; the UDP socket is bound when the
 * first QP is created.
 */
public final class SoftRoceDevice implements Device {

    private final String name;
    private final SoftRoceProfile profile;
    private final DeviceOptions options;
    private final Fabric fabric;

    SoftRoceDevice(String name, DeviceOptions options, Fabric fabric) {
        this.name = name;
        this.options = options;
        this.fabric = fabric;
        this.profile = new SoftRoceProfile(options.address(), options.udpPort(), options.destinationUdpPort(),
                options.linkMtu());
        FaultInjector.parse(options.faults()); // refuse a bad spec now, with its one-line message
    }

    /** What the device reports about itself. */
    public SoftRoceProfile profile() {
        return profile;
    }

    /** The options the device was configured with. */
    public DeviceOptions options() {
        return options;
    }

    Fabric fabric() {
        return fabric;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String backend() {
        return "software";
    }

    @Override
    public String description() {
        return description(fabric instanceof SimulatedNetwork ? null : WireSocket.probe());
    }

    /** The description with {@code wire}, how this process's sockets can be set up (null: simulated network). */
    String description(WireSocket.Setup wire) {
        String text = "software RoCE v2 on " + profile.address().getHostAddress() + " UDP " + profile.udpPort();
        if (wire == null) {
            return text + " (simulated network)";
        }
        return wire.fixedId() ? text : text + "; wire interop with kernel rxe off: " + wire.problem();
    }

    /** {@code ibv_open_device}: binds nothing yet. */
    @Override
    public Context open() throws VerbsException {
        return new SoftRoceContext(this);
    }
}
