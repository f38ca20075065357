package org.rdmalab.softroce;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Seeded, reproducible faults on a device's outgoing datagrams, parsed from a spec such as
 * {@code drop=0.05,dup=0.01,reorder=0.02,corrupt=0.001,delay=2ms,seed=7}:
 * <ul>
 * <li>{@code drop}: probability a datagram is lost;</li>
 * <li>{@code dup}: probability it is sent twice;</li>
 * <li>{@code reorder}: probability it is held back and sent after the next datagram (or after
 * 1 ms when none follows);</li>
 * <li>{@code corrupt}: probability one bit of it is flipped (the receiver's ICRC check drops it);</li>
 * <li>{@code delay}: extra one-way delay of every datagram ({@code 2ms}, {@code 500us}, {@code 100ns},
 * {@code 1s});</li>
 * <li>{@code seed}: the random seed (default 1), so a run can be repeated exactly.</li>
 * </ul>
 * Decisions are drawn in a fixed order per datagram, so the same seed and the same traffic give
 * the same faults. Used on the device's transport thread only.
 */
public final class FaultInjector {

    /** The keys a spec may use. */
    public static final String VALID_KEYS = "drop, dup, reorder, corrupt, delay, seed";

    private final double drop;
    private final double duplicate;
    private final double reorder;
    private final double corrupt;
    private final long delayNanos;
    private final long seed;
    private final SplittableRandom random;

    private FaultInjector(double drop, double duplicate, double reorder, double corrupt, long delayNanos, long seed) {
        this.drop = drop;
        this.duplicate = duplicate;
        this.reorder = reorder;
        this.corrupt = corrupt;
        this.delayNanos = delayNanos;
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    /**
     * Parses a spec; an empty spec gives null (no faults).
     *
     * @throws IllegalArgumentException with one line naming the bad key or value and the valid keys
     */
    public static FaultInjector parse(String spec) {
        if (spec == null || spec.isBlank()) {
            return null;
        }
        double drop = 0;
        double duplicate = 0;
        double reorder = 0;
        double corrupt = 0;
        long delay = 0;
        long seed = 1;
        for (String part : spec.split(",")) {
            String item = part.trim();
            if (item.isEmpty()) {
                continue;
            }
            int eq = item.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("fault spec item '" + item + "' is not key=value; valid keys: "
                        + VALID_KEYS);
            }
            String key = item.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            String value = item.substring(eq + 1).trim();
            switch (key) {
                case "drop" -> drop = probability(key, value);
                case "dup" -> duplicate = probability(key, value);
                case "reorder" -> reorder = probability(key, value);
                case "corrupt" -> corrupt = probability(key, value);
                case "delay" -> delay = duration(value);
                case "seed" -> {
                    try {
                        seed = Long.parseLong(value);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("fault spec: seed '" + value + "' is not an integer");
                    }
                }
                default -> throw new IllegalArgumentException("fault spec: unknown key '" + key + "'; valid keys: "
                        + VALID_KEYS);
            }
        }
        return new FaultInjector(drop, duplicate, reorder, corrupt, delay, seed);
    }

    private static double probability(String key, String value) {
        double p;
        try {
            p = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fault spec: " + key + " '" + value + "' is not a probability (0..1)");
        }
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("fault spec: " + key + " " + value + " is outside 0..1");
        }
        return p;
    }

    private static long duration(String value) {
        String text = value.toLowerCase(Locale.ROOT);
        long unit;
        String number;
        if (text.endsWith("ns")) {
            unit = 1;
            number = text.substring(0, text.length() - 2);
        } else if (text.endsWith("us")) {
            unit = 1_000;
            number = text.substring(0, text.length() - 2);
        } else if (text.endsWith("ms")) {
            unit = 1_000_000;
            number = text.substring(0, text.length() - 2);
        } else if (text.endsWith("s")) {
            unit = 1_000_000_000;
            number = text.substring(0, text.length() - 1);
        } else {
            throw new IllegalArgumentException("fault spec: delay '" + value + "' needs a unit (ns, us, ms or s), e.g. 2ms");
        }
        try {
            double amount = Double.parseDouble(number.trim());
            if (!(amount >= 0) || amount * unit > 60e9) {
                throw new IllegalArgumentException("fault spec: delay '" + value + "' is outside 0..60s");
            }
            return Math.round(amount * unit);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fault spec: delay '" + value + "' is not a duration such as 2ms");
        }
    }

    /** Draws whether the next datagram is lost. */
    boolean drawDrop() {
        return drop > 0 && random.nextDouble() < drop;
    }

    /** Draws whether it is sent twice. */
    boolean drawDuplicate() {
        return duplicate > 0 && random.nextDouble() < duplicate;
    }

    /** Draws whether it is held back behind the next one. */
    boolean drawReorder() {
        return reorder > 0 && random.nextDouble() < reorder;
    }

    /** Draws a bit index to flip in a datagram of {@code length} bytes, or -1. */
    int drawCorruptBit(int length) {
        if (corrupt > 0 && random.nextDouble() < corrupt) {
            return random.nextInt(length * 8);
        }
        return -1;
    }

    /** The extra delay of every datagram. */
    long delayNanos() {
        return delayNanos;
    }

    /** The seed. */
    public long seed() {
        return seed;
    }

    /** The spec in canonical form. */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "drop=%s,dup=%s,reorder=%s,corrupt=%s,delay=%dns,seed=%d",
                drop, duplicate, reorder, corrupt, delayNanos, seed);
    }
}
