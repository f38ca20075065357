package org.rdmalab.verbs;

/** An enum constant that stands for a verbs.h number; {@link #byValue} looks one up. */
public interface Numbered {

    /** The verbs.h (or Linux) value. */
    int value();

    /**
     * The constant of {@code type} whose value is {@code value}.
     *
     * @param what the C type for the message ("ibv_qp_state")
     * @throws IllegalArgumentException when none has it
     */
    static <E extends Enum<E> & Numbered> E byValue(Class<E> type, int value, String what) {
        return byValue(type.getEnumConstants(), value, what);
    }

    /** The constant among {@code constants} whose value is {@code value}, by a search. */
    private static <E extends Numbered> E byValue(E[] constants, int value, String what) {
        for (E constant : constants) {
            if (constant.value() == value) {
                return constant;
            }
        }
        throw new IllegalArgumentException("no " + what + " has value " + value);
    }

    /**
     * {@code constants} placed at the index of their value (null where none has it), for {@link
     * #byIndex}: a lookup on a hot path (every polled completion) is then one array load, where a
     * search calls {@code value()} through this interface once per constant. Values must not be
     * negative.
     */
    static <E extends Numbered> E[] indexedByValue(E[] constants) {
        int highest = 0;
        for (E constant : constants) {
            highest = Math.max(highest, constant.value());
        }
        E[] table = java.util.Arrays.copyOf(constants, highest + 1);
        java.util.Arrays.fill(table, null);
        for (E constant : constants) {
            table[constant.value()] = constant;
        }
        return table;
    }

    /**
     * The constant with value {@code value} in a table made by {@link #indexedByValue}.
     *
     * @throws IllegalArgumentException when none has it
     */
    static <E extends Numbered> E byIndex(E[] table, int value, String what) {
        if (value >= 0 && value < table.length && table[value] != null) {
            return table[value];
        }
        throw new IllegalArgumentException("no " + what + " has value " + value);
    }
}
