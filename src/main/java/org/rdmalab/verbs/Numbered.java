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

    /**
     * The constant among {@code constants} whose value is {@code value}: for a lookup on a hot path,
     * with the enum's {@code values()} kept once ({@code getEnumConstants} copies the array on every call).
     *
     * @throws IllegalArgumentException when none has it
     */
    static <E extends Numbered> E byValue(E[] constants, int value, String what) {
        // Most enums number their constants 0, 1, 2 ... in declaration order: try the index first.
        if (value >= 0 && value < constants.length && constants[value].value() == value) {
            return constants[value];
        }
        for (E constant : constants) {
            if (constant.value() == value) {
                return constant;
            }
        }
        throw new IllegalArgumentException("no " + what + " has value " + value);
    }
}
