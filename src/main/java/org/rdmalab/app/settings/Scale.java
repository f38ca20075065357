package org.rdmalab.app.settings;

/**
 * How much bigger the whole window is drawn: 1 at a desk, {@link #PROJECTOR} in a lecture hall
 * ({@code gui --scale F}, the Projector switch). The window lays itself out at its size divided
 * by the factor and is drawn that much larger, fonts, diagrams, hex views and charts alike.
 */
public final class Scale {

    /** The smallest factor: the window as designed. */
    public static final double MIN = 1.0;
    /** The largest factor: beyond it the smallest window no longer fits a 4K screen. */
    public static final double MAX = 3.0;
    /** The Projector switch's factor. */
    public static final double PROJECTOR = 1.5;
    /** The factor at a desk. */
    public static final double DESK = 1.0;

    private Scale() {
    }

    /** True for a factor the window accepts: a number from {@link #MIN} to {@link #MAX}. */
    public static boolean valid(double factor) {
        return !Double.isNaN(factor) && factor >= MIN && factor <= MAX;
    }

    /**
     * The factor {@code text} names (1.5, 2).
     *
     * @throws IllegalArgumentException in one line saying which factors work
     */
    public static double parse(String text) {
        double factor;
        try {
            factor = Double.parseDouble(text == null ? "" : text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--scale '" + text + "' is not a number; give a factor from "
                    + format(MIN) + " to " + format(MAX) + ", such as 1.5 for a projector");
        }
        if (!valid(factor)) {
            throw new IllegalArgumentException("--scale " + text.trim() + " is outside " + format(MIN) + " to "
                    + format(MAX) + "; give 1.5 for a projector, 1 for a desk");
        }
        return factor;
    }

    /** The factor as the window shows it: 1.5, 2 (no trailing zeros). */
    public static String format(double factor) {
        String text = java.math.BigDecimal.valueOf(factor).stripTrailingZeros().toPlainString();
        return text.contains(".") ? text : text + ".0";
    }
}
