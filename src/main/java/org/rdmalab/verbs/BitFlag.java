package org.rdmalab.verbs;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;

/**
 * A flag enum whose constants carry a verbs.h bit value.
 *
 * <p>Masks travel as plain {@code int}s exactly as in C; the static helpers turn them into names
 * and back.
 */
public interface BitFlag {

    /** The bit value from verbs.h. */
    int value();

    /** The constant's name without the C prefix ({@code PATH_MTU}). */
    String name();

    /** The C name ({@code IBV_QP_PATH_MTU}). */
    String cName();

    /** ORs the values of {@code flags}. */
    @SafeVarargs
    static <E extends Enum<E> & BitFlag> int mask(E... flags) {
        int mask = 0;
        for (E flag : flags) {
            mask |= flag.value();
        }
        return mask;
    }

    /** The flags of {@code type} set in {@code mask}, in declaration order. */
    static <E extends Enum<E> & BitFlag> EnumSet<E> decode(Class<E> type, int mask) {
        EnumSet<E> set = EnumSet.noneOf(type);
        for (E flag : type.getEnumConstants()) {
            if (flag.value() != 0 && (mask & flag.value()) == flag.value()) {
                set.add(flag);
            }
        }
        return set;
    }

    /** The bits of {@code mask} that no constant of {@code type} names. */
    static <E extends Enum<E> & BitFlag> int unknownBits(Class<E> type, int mask) {
        int known = 0;
        for (E flag : type.getEnumConstants()) {
            known |= flag.value();
        }
        return mask & ~known;
    }

    /** "STATE, AV, PATH_MTU" (unknown bits appended in hex), or "none". */
    static <E extends Enum<E> & BitFlag> String names(Class<E> type, int mask) {
        List<String> names = new ArrayList<>();
        for (E flag : decode(type, mask)) {
            names.add(flag.name());
        }
        int unknown = unknownBits(type, mask);
        if (unknown != 0) {
            names.add(String.format("0x%x", unknown));
        }
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    /** C expression for the mask: {@code IBV_QP_STATE | IBV_QP_PKEY_INDEX}, or {@code 0}. */
    static <E extends Enum<E> & BitFlag> String cExpression(Class<E> type, int mask) {
        List<String> names = new ArrayList<>();
        for (E flag : decode(type, mask)) {
            names.add(flag.cName());
        }
        int unknown = unknownBits(type, mask);
        if (unknown != 0) {
            names.add(String.format("0x%x", unknown));
        }
        return names.isEmpty() ? "0" : String.join(" | ", names);
    }

    /**
     * Parses a mask written as hex ({@code 0x129181}), decimal, or names separated by commas or
     * {@code |} ({@code STATE,AV,PATH_MTU}; the C prefix is optional, case is ignored).
     *
     * @throws IllegalArgumentException naming the unknown word and listing the valid names
     */
    static <E extends Enum<E> & BitFlag> int parse(Class<E> type, String text) {
        String trimmed = text.trim();
        if (trimmed.isEmpty()) {
            throw new IllegalArgumentException("empty mask; give hex (0x81) or names (" + validNames(type) + ")");
        }
        if (trimmed.matches("(?i)0x[0-9a-f]+")) {
            return (int) Long.parseLong(trimmed.substring(2), 16);
        }
        if (trimmed.matches("[0-9]+")) {
            return (int) Long.parseLong(trimmed);
        }
        int mask = 0;
        for (String word : trimmed.split("[,|+\\s]+")) {
            if (word.isEmpty()) {
                continue;
            }
            mask |= lookup(type, word).value();
        }
        return mask;
    }

    private static <E extends Enum<E> & BitFlag> E lookup(Class<E> type, String word) {
        String upper = word.toUpperCase(Locale.ROOT);
        for (E flag : type.getEnumConstants()) {
            if (flag.name().equals(upper) || flag.cName().equals(upper)) {
                return flag;
            }
        }
        throw new IllegalArgumentException("unknown name '" + word + "'; valid names: " + validNames(type));
    }

    /** All constant names of {@code type}, comma separated. */
    static <E extends Enum<E> & BitFlag> String validNames(Class<E> type) {
        List<String> names = new ArrayList<>();
        for (E flag : type.getEnumConstants()) {
            names.add(flag.name());
        }
        return String.join(", ", names);
    }
}
