package org.rdmalab.doctor;

import java.util.Optional;
import org.rdmalab.text.Phrase;
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
            return Check.skip(GID_INDEX, Phrase.from(Check.PEER, "lab.gidIdx.noFacts", text));
        }
        SideFacts side = facts.get();
        int recommended = side.gidIndex();
        boolean roce = side.linkLayer().equals(LinkLayer.ETHERNET.text());
        Phrase use = recommended < 0
                ? side.netdev().isEmpty()
                        ? Phrase.from(Check.PEER, "lab.gidIdx.fix.addAddress", side.ip())
                        : Phrase.from(Check.PEER, "lab.gidIdx.fix.addAddressTo", side.netdev(), side.ip())
                : Phrase.from(Check.PEER, "lab.gidIdx.fix.useRecommended", recommended, side.gidText(), side.ip());
        if (text.equals("-1")) {
            if (!roce) {
                return Check.pass(GID_INDEX, Phrase.from(Check.PEER, "lab.gidIdx.minusOne.infiniBand"));
            }
            return Check.fail(GID_INDEX, Phrase.from(Check.PEER, "lab.gidIdx.minusOne"), use);
        }
        if (text.equalsIgnoreCase("auto")) {
            return Check.pass(GID_INDEX, recommended < 0 ? Phrase.from(Check.PEER, "lab.gidIdx.auto")
                    : Phrase.from(Check.PEER, "lab.gidIdx.auto.carries", side.ip(), side.gidText()));
        }
        int index;
        try {
            index = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return Check.fail(GID_INDEX, Phrase.from(Check.PEER, "lab.gidIdx.notAnIndex", text), use);
        }
        if (recommended < 0) {
            return Check.skip(GID_INDEX, Phrase.from(Check.PEER, "lab.gidIdx.noEntry", side.ip(), index));
        }
        if (index == recommended) {
            return Check.pass(GID_INDEX, Phrase.from(Check.PEER, "lab.gidIdx.recommended", index, side.gidText(),
                    side.ip()));
        }
        return Check.fail(GID_INDEX, Phrase.from(Check.PEER, "lab.gidIdx.other", index, side.ip(), side.gidType()),
                use);
    }
}
