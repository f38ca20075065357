package org.rdmalab.softroce;

import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.VerbsException;

/** The software RoCE v2 device. */
public final class SoftRoceDevice implements Device {

    private final String name;
    private final SoftRoceProfile profile;

    SoftRoceDevice(String name, SoftRoceProfile profile) {
        this.name = name;
        this.profile = profile;
    }

    /** What the device reports about itself. */
    public SoftRoceProfile profile() {
        return profile;
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
        return "software RoCE v2 on " + profile.address().getHostAddress() + " UDP " + profile.udpPort();
    }

    @Override
    public Context open() throws VerbsException {
        return new SoftRoceContext(this);
    }
}
