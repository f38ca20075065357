package org.rdmalab.doctor;

import java.util.Optional;
import org.rdmalab.verbs.LinkLayer;

/**
 * Checks of a value the lab's sessions will use and the command line does not take: the setup's
 * {@code gid_idx}, compared with the entry {@link LocalChecks} found for the address. The window's
 * Doctor view adds this check to the local checks' report; {@code doctor} on the command line
 * picks the GID itself, so it has nothing to compare.
 *
 * <p>Threads: pure functions, any thread.
 */
public final class LabChecks {

    /** The name of the gid_idx check (the setup field it judges). */
    public static final String GID_INDEX = "gid_idx";

    private LabChecks() {
    }

    /**
     * Judges the setup's {@code gid_idx} ({@code -1}, {@code auto} or an index) against the GID
     * entry the local checks recommend for the address in {@code facts}.
     *
     * @param chosen the gid_idx field as typed
     * @param facts what the local checks found for one address; empty when the device or address failed
     */
    public static Check gidIndex(String chosen, Optional<SideFacts> facts) {
        String text = chosen == null ? "" : chosen.trim();
        if (facts.isEmpty()) {
            return Check.skip(GID_INDEX, "gid_idx " + text + " cannot be judged: the device or the address"
                    + " failed its checks above");
        }
        SideFacts side = facts.get();
        int recommended = side.gidIndex();
        boolean roce = side.linkLayer().equals(LinkLayer.ETHERNET.text());
        String use = recommended < 0
                ? "first give " + (side.netdev().isEmpty() ? "the netdev" : side.netdev()) + " the address " + side.ip()
                        + " (see the GID check), then use the index of its RoCE v2 GID"
                : "use gid_idx " + recommended + ", the recommended " + side.gidText() + " that carries " + side.ip();
        if (text.equals("-1")) {
            if (!roce) {
                return Check.pass(GID_INDEX, "gid_idx -1: no GRH, which InfiniBand needs only to leave the subnet");
            }
            return Check.fail(GID_INDEX, "gid_idx is -1 (the seed's default): the QP gets no GRH, but RoCE carries"
                    + " every packet in UDP/IP, so ibv_modify_qp to RTR fails with EINVAL", use);
        }
        if (text.equalsIgnoreCase("auto")) {
            return Check.pass(GID_INDEX, "gid_idx auto: the lab takes the entry perftest's scoring ranks best when"
                    + " it queries the port" + (recommended < 0 ? "" : "; the entry that carries " + side.ip()
                    + " is " + side.gidText()));
        }
        int index;
        try {
            index = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return Check.fail(GID_INDEX, "gid_idx '" + text + "' is not -1, auto or an index", use);
        }
        if (recommended < 0) {
            return Check.skip(GID_INDEX, "no GID carries " + side.ip() + " (see the GID check), so gid_idx " + index
                    + " cannot be judged");
        }
        if (index == recommended) {
            return Check.pass(GID_INDEX, "gid_idx " + index + " is the recommended " + side.gidText() + " for "
                    + side.ip());
        }
        return Check.fail(GID_INDEX, "gid_idx " + index + " is not the entry that carries " + side.ip() + " as "
                + side.gidType() + ": packets would leave with another source GID (a link-local fe80:: entry"
                + " routes nowhere), and the peer answers an address that is not this one", use);
    }
}
