package org.rdmalab.verbs;

import java.util.Locale;

/**
 * The random faults a device injects on its outgoing packets, as a spec such as
 * {@code drop=0.05,dup=0.01,reorder=0.02,corrupt=0.001,delay=2ms,seed=7} gives them (the
 * command line's {@code --fault}, the window's Faults panel):
 * <ul>
 * <li>{@code drop}: probability a packet is lost;</li>
 * <li>{@code dup}: probability it is sent twice;</li>
 * <li>{@code reorder}: probability it is held back and sent after the next packet (or after
 * 1 ms when none follows);</li>
 * <li>{@code corrupt}: probability one bit of it is flipped (the receiver's ICRC check drops it);</li>
 * <li>{@code delay}: extra one-way delay of every packet ({@code 2ms}, {@code 500us}, {@code 100ns},
 * {@code 1s}; at most 60 s);</li>
 * <li>{@code seed}: the random seed (default 1) every draw comes from, so a run can be repeated exactly.</li>
 * </ul>
 * Immutable.
 *
 * @param drop probability 0..1
 * @param duplicate probability 0..1
 * @param reorder probability 0..1
 * @param corrupt probability 0..1
 * @param delayNanos extra delay of every packet, 0..60 s in nanoseconds
 * @param seed the seed of the draws
 */
public record FaultSettings(double drop, double duplicate, double reorder, double corrupt, long delayNanos, long seed) {

    /** The keys a spec may use. */
    public static final String VALID_KEYS = "drop, dup, reorder, corrupt, delay, seed";

    /** The longest delay a spec may give. */
    public static final long MAX_DELAY_NANOS = 60_000_000_000L;

    /** No faults, seed 1. */
    public static final FaultSettings NONE = new FaultSettings(0, 0, 0, 0, 0, 1);

    /**
     * @throws IllegalArgumentException with one line naming the value that is out of range
     */
    public FaultSettings {
        check("drop", drop);
        check("dup", duplicate);
        check("reorder", reorder);
        check("corrupt", corrupt);
        if (delayNanos < 0 || delayNanos > MAX_DELAY_NANOS) {
            throw new IllegalArgumentException("fault spec: delay " + delayNanos + "ns is outside 0..60s");
        }
    }

    private static void check(String key, double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("fault spec: " + key + " " + p + " is outside 0..1");
        }
    }

    /** True when no fault can fire: every rate is 0 and there is no delay (the seed does not matter). */
    public boolean none() {
        return drop == 0 && duplicate == 0 && reorder == 0 && corrupt == 0 && delayNanos == 0;
    }

    /** The same settings with another seed. */
    public FaultSettings withSeed(long newSeed) {
        return new FaultSettings(drop, duplicate, reorder, corrupt, delayNanos, newSeed);
    }

    /**
     * Parses a spec; an empty or null spec gives {@link #NONE}.
     *
     * @throws IllegalArgumentException with one line naming the bad key or value and the valid keys
     */
    public static FaultSettings parse(String spec) {
        if (spec == null || spec.isBlank()) {
            return NONE;
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
        return new FaultSettings(drop, duplicate, reorder, corrupt, delay, seed);
    }

    /** A probability as a spec gives it: a number in 0..1. */
    public static double probability(String key, String value) {
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

    /** A delay as a spec gives it ({@code 2ms}, {@code 500us}, {@code 100ns}, {@code 1s}), in nanoseconds. */
    public static long duration(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
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
            if (!(amount >= 0) || amount * unit > MAX_DELAY_NANOS) {
                throw new IllegalArgumentException("fault spec: delay '" + value + "' is outside 0..60s");
            }
            return Math.round(amount * unit);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fault spec: delay '" + value + "' is not a duration such as 2ms");
        }
    }

    /** The delay as a spec writes it, in the largest unit that keeps it whole ({@code 2ms}, {@code 1500us}). */
    public static String formatDelay(long nanos) {
        if (nanos != 0 && nanos % 1_000_000_000L == 0) {
            return nanos / 1_000_000_000L + "s";
        }
        if (nanos != 0 && nanos % 1_000_000L == 0) {
            return nanos / 1_000_000L + "ms";
        }
        if (nanos != 0 && nanos % 1_000L == 0) {
            return nanos / 1_000L + "us";
        }
        return nanos + "ns";
    }

    /**
     * The spec that parses back to these settings, naming only what is set and the seed
     * ({@code drop=0.05,delay=2ms,seed=7}; {@code seed=1} alone for no faults).
     */
    public String toSpec() {
        StringBuilder spec = new StringBuilder();
        rate(spec, "drop", drop);
        rate(spec, "dup", duplicate);
        rate(spec, "reorder", reorder);
        rate(spec, "corrupt", corrupt);
        if (delayNanos > 0) {
            spec.append("delay=").append(formatDelay(delayNanos)).append(',');
        }
        return spec.append("seed=").append(seed).toString();
    }

    private static void rate(StringBuilder spec, String key, double p) {
        if (p > 0) {
            spec.append(key).append('=').append(plain(p)).append(',');
        }
    }

    /** A probability without a trailing ".0" or an exponent ({@code 0.001}, {@code 1}). */
    public static String plain(double p) {
        return new java.math.BigDecimal(Double.toString(p)).stripTrailingZeros().toPlainString();
    }
}
