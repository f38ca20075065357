package org.rdmalab.lab;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One editable parameter of a step, with the seed's default. Values are kept as text (what a user
 * types); {@link #set} validates before accepting.
 */
public final class Parameter {

    /** How a value is written and checked. */
    public enum Kind {
        /** Decimal integer within [min, max]. */
        INTEGER,
        /** Integer written in hex ({@code 0x12}) or decimal, within [min, max]. */
        HEX,
        /** One of a fixed list of names. */
        CHOICE,
        /** Free text. */
        TEXT
    }

    private final String name;
    private final String description;
    private final Kind kind;
    private final String defaultValue;
    private final long min;
    private final long max;
    private final List<String> choices;
    private String value;

    private Parameter(String name, String description, Kind kind, String defaultValue, long min, long max,
                      List<String> choices) {
        this.name = Objects.requireNonNull(name);
        this.description = description;
        this.kind = kind;
        this.min = min;
        this.max = max;
        this.choices = List.copyOf(choices);
        this.defaultValue = defaultValue;
        this.value = defaultValue;
        validate(defaultValue);
    }

    /** A decimal integer parameter. */
    public static Parameter integer(String name, String description, long defaultValue, long min, long max) {
        return new Parameter(name, description, Kind.INTEGER, Long.toString(defaultValue), min, max, List.of());
    }

    /** An integer shown in hex. */
    public static Parameter hex(String name, String description, long defaultValue, long min, long max) {
        return new Parameter(name, description, Kind.HEX, "0x" + Long.toHexString(defaultValue), min, max, List.of());
    }

    /** A choice among names. */
    public static Parameter choice(String name, String description, String defaultValue, List<String> choices) {
        return new Parameter(name, description, Kind.CHOICE, defaultValue, 0, 0, choices);
    }

    /** Free text. */
    public static Parameter text(String name, String description, String defaultValue) {
        return new Parameter(name, description, Kind.TEXT, defaultValue, 0, 0, List.of());
    }

    public String name() {
        return name;
    }

    public String description() {
        return description;
    }

    public Kind kind() {
        return kind;
    }

    public List<String> choices() {
        return choices;
    }

    public String defaultValue() {
        return defaultValue;
    }

    /** The current value as text. */
    public String value() {
        return value;
    }

    /**
     * Sets the value after checking it.
     *
     * @throws IllegalArgumentException naming the parameter and what a valid value is
     */
    public void set(String text) {
        String trimmed = text == null ? "" : text.trim();
        validate(trimmed);
        value = kind == Kind.CHOICE ? canonicalChoice(trimmed) : trimmed;
    }

    /** Back to the default. */
    public void reset() {
        value = defaultValue;
    }

    /** The value as a number (INTEGER and HEX). */
    public long asLong() {
        return parseNumber(value);
    }

    /** The value as an int (INTEGER and HEX). */
    public int asInt() {
        return (int) asLong();
    }

    private void validate(String text) {
        switch (kind) {
            case INTEGER, HEX -> {
                long number;
                try {
                    number = parseNumber(text);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(name + ": '" + text + "' is not a number"
                            + (kind == Kind.HEX ? " (write 0x12 or 18)" : ""));
                }
                if (number < min || number > max) {
                    throw new IllegalArgumentException(name + ": " + text + " is outside " + bound(min) + ".." + bound(max));
                }
            }
            case CHOICE -> canonicalChoice(text);
            case TEXT -> {
                // Any text.
            }
        }
    }

    private String bound(long number) {
        return kind == Kind.HEX ? "0x" + Long.toHexString(number) : Long.toString(number);
    }

    private String canonicalChoice(String text) {
        for (String choice : choices) {
            if (choice.equalsIgnoreCase(text)) {
                return choice;
            }
        }
        throw new IllegalArgumentException(name + ": '" + text + "' is not one of " + String.join(", ", choices));
    }

    private static long parseNumber(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.startsWith("0x")) {
            return Long.parseLong(lower.substring(2), 16);
        }
        if (lower.startsWith("-0x")) {
            return -Long.parseLong(lower.substring(3), 16);
        }
        return Long.parseLong(lower);
    }

    @Override
    public String toString() {
        return name + " = " + value;
    }
}
