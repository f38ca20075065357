package org.rdmalab.control.lab;

/**
 * A wire code of an open value class: the known codes have names, any other code is kept as it
 * came (so a newer peer's values survive a round trip) and shows as {@code UNKNOWN(0x..)}.
 * Subclasses hold the registry of known codes; equality is by class and code.
 */
public abstract class OpenCode {

    private final int code;
    private final String name;
    private final int hexDigits;

    /**
     * @param code the wire code
     * @param name the name of a known code, or null for an unknown one
     * @param hexDigits how many hex digits an unknown code shows with (its width on the wire)
     */
    protected OpenCode(int code, String name, int hexDigits) {
        this.code = code;
        this.name = name;
        this.hexDigits = hexDigits;
    }

    /** The wire code. */
    public final int code() {
        return code;
    }

    /** True for the codes this version defines. */
    public final boolean isKnown() {
        return name != null;
    }

    /** The known name, or {@code UNKNOWN(0x..)}. */
    public final String name() {
        return name != null ? name : String.format("UNKNOWN(0x%0" + hexDigits + "x)", code);
    }

    @Override
    public final boolean equals(Object other) {
        return other != null && other.getClass() == getClass() && ((OpenCode) other).code == code;
    }

    @Override
    public final int hashCode() {
        return Integer.hashCode(code);
    }

    @Override
    public final String toString() {
        return name();
    }
}
