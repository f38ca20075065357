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
        for (E constant : type.getEnumConstants()) {
            if (constant.value() == value) {
                return constant;
            }
        }
        throw new IllegalArgumentException("no " + what + " has value " + value);
    }
}
