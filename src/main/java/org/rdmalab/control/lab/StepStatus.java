package org.rdmalab.control.lab;

import java.util.LinkedHashMap;
import java.util.Map;

/** How a step went, as carried by {@link StepProgress}: an open value class over an 8-bit code. */
public final class StepStatus extends OpenCode {

    private static final Map<Integer, StepStatus> KNOWN = new LinkedHashMap<>();

    /** The step began. */
    public static final StepStatus STARTED = known(1, "STARTED");
    /** The step finished without error. */
    public static final StepStatus SUCCEEDED = known(2, "SUCCEEDED");
    /** The step failed; the detail says why. */
    public static final StepStatus FAILED = known(3, "FAILED");
    /** The step was not run (not needed in this scenario). */
    public static final StepStatus SKIPPED = known(4, "SKIPPED");

    private StepStatus(int code, String name) {
        super(code, name, 2);
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
}
