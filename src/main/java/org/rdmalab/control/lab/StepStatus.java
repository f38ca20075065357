package org.rdmalab.control.lab;

import java.util.LinkedHashMap;
import java.util.Map;

/** How a step went, as carried by {@link StepProgress}: an open value class over an 8-bit code. */
public final class StepStatus {

    private static final Map<Integer, StepStatus> KNOWN = new LinkedHashMap<>();

    /** The step began. */
    public static final StepStatus STARTED = known(1, "STARTED");
    /** The step finished without error. */
    public static final StepStatus SUCCEEDED = known(2, "SUCCEEDED");
    /** The step failed; the detail says why. */
    public static final StepStatus FAILED = known(3, "FAILED");
    /** The step was not run (not needed in this scenario). */
    public static final StepStatus SKIPPED = known(4, "SKIPPED");

    private final int code;
    private final String name;

    private StepStatus(int code, String name) {
        this.code = code;
        this.name = name;
    }

    private static StepStatus known(int code, String name) {
        StepStatus status = new StepStatus(code, name);
        KNOWN.put(code, status);
        return status;
    }

    /** The status with code {@code code} (0..255), known or not. */
    public static StepStatus of(int code) {
        if (code < 0 || code > 0xff) {
            throw new IllegalArgumentException("a step status is 8 bits, not " + code);
        }
        StepStatus status = KNOWN.get(code);
        return status != null ? status : new StepStatus(code, null);
    }

    /** The 8-bit wire code. */
    public int code() {
        return code;
    }

    /** True for the statuses this version defines. */
    public boolean isKnown() {
        return name != null;
    }

    /** {@code SUCCEEDED}, or {@code UNKNOWN(0x09)}. */
    public String name() {
        return name != null ? name : String.format("UNKNOWN(0x%02x)", code);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StepStatus status && status.code == code;
    }

    @Override
    public int hashCode() {
        return Integer.hashCode(code);
    }

    @Override
    public String toString() {
        return name();
    }
}
