package org.rdmalab.verbs;

import java.net.Inet4Address;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Picks a GID index when the user does not: perftest's scoring (control-protocols.md): +100 for
 * an IPv4-mapped GID, +10 when not link-local, plus the RoCE version (v2 = 2, v1 = 1). When the
 * user named a local address, the GID that carries it wins: a netdev with two addresses has two
 * IPv4-mapped GIDs (rxe on eth0 with 10.0.2.15 and 10.0.2.16 lists them at indexes 1 and 2), and
 * scoring alone would always pick the first.
 */
public final class GidSelection {

    private GidSelection() {
    }

    /** The score of one entry. */
    public static int score(GidEntry entry) {
        int score = 0;
        if (entry.gid().isIpv4Mapped()) {
            score += 100;
        }
        if (!entry.gid().isLinkLocal()) {
            score += 10;
        }
        if (entry.type() == GidType.ROCE_V2) {
            score += 2;
        } else if (entry.type() == GidType.ROCE_V1) {
            score += 1;
        }
        return score;
    }

    /**
     * Why {@link #score} ranks {@code entry} as it does, in words for the user: each rule with its
     * points and what it means on the wire. The setup view, the fix for a wrong GID index and
     * {@code doctor} all give this one text.
     */
    public static String reason(GidEntry entry) {
        List<String> parts = new ArrayList<>();
        for (Rule rule : rules(entry)) {
            parts.add(switch (rule) {
                case IPV4_MAPPED -> "IPv4-mapped (+100): it carries " + (entry.ipAddress() == null
                        || entry.ipAddress().isEmpty() ? "an IPv4 address" : "the IPv4 address " + entry.ipAddress())
                        + ", so its packets are routed by IP";
                case NOT_IPV4_MAPPED -> "not IPv4-mapped";
                case LINK_LOCAL -> "link-local: it routes nowhere beyond its link";
                case NOT_LINK_LOCAL -> "not link-local (+10)";
                case ROCE_V2 -> "RoCE v2 (+2): UDP port 4791, crosses routers";
                case ROCE_V1 -> "RoCE v1 (+1): a bare Ethernet frame, stays in one L2 network";
                case OTHER_TYPE -> entry.type().text();
            });
        }
        return String.join("; ", parts) + "; best by perftest's scoring";
    }

    /** The rules of {@link #score}, as {@link #reason} names them for an entry. */
    public enum Rule {
        IPV4_MAPPED, NOT_IPV4_MAPPED, LINK_LOCAL, NOT_LINK_LOCAL, ROCE_V2, ROCE_V1, OTHER_TYPE
    }

    /**
     * The three rules {@link #score} applied to {@code entry}, in {@link #reason}'s order: whether it
     * is IPv4-mapped, whether it is link-local, and its type. The window words them in its own
     * language from these.
     */
    public static List<Rule> rules(GidEntry entry) {
        return List.of(entry.gid().isIpv4Mapped() ? Rule.IPV4_MAPPED : Rule.NOT_IPV4_MAPPED,
                entry.gid().isLinkLocal() ? Rule.LINK_LOCAL : Rule.NOT_LINK_LOCAL,
                switch (entry.type()) {
                    case ROCE_V2 -> Rule.ROCE_V2;
                    case ROCE_V1 -> Rule.ROCE_V1;
                    default -> Rule.OTHER_TYPE;
                });
    }

    /** The best entry of a GID table (the first of equals), if the table is not empty. */
    public static Optional<GidEntry> best(List<GidEntry> table) {
        GidEntry best = null;
        for (GidEntry entry : table) {
            if (best == null || score(entry) > score(best)) {
                best = entry;
            }
        }
        return Optional.ofNullable(best);
    }

    /**
     * The best entry among those that carry {@code address} (its IPv4-mapped GID), if any does.
     * RoCE v2 beats v1 as in {@link #score}.
     */
    public static Optional<GidEntry> carrying(List<GidEntry> table, Inet4Address address) {
        Gid wanted = Gid.ipv4Mapped(address);
        return best(table.stream().filter(entry -> entry.gid().equals(wanted)).toList());
    }

    /**
     * What {@code gid_idx auto} picks for a peer on {@code address}: the GID carrying it, else the
     * best by score; the reason says which rule chose, for the user to read.
     */
    public static Optional<Choice> forAddress(List<GidEntry> table, Inet4Address address) {
        Optional<GidEntry> carrying = carrying(table, address);
        if (carrying.isPresent()) {
            return Optional.of(new Choice(carrying.get(), "the GID of " + address.getHostAddress()));
        }
        return best(table).map(entry -> new Choice(entry, "no GID carries " + address.getHostAddress()
                + ", so the best by perftest's scoring"));
    }

    /**
     * A chosen entry and why it was chosen.
     *
     * @param entry the GID table row
     * @param reason "the GID of 10.0.2.16", or why another was taken
     */
    public record Choice(GidEntry entry, String reason) {
    }
}
