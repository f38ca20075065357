package org.rdmalab.lab.scenario;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32;
import org.rdmalab.verbs.WcFlag;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/** A scenario's expectations: each check is reported as it is made, and the failed ones make the result. */
public final class Checks {

    private final ScenarioListener listener;
    private final List<String> problems = new ArrayList<>();

    Checks(ScenarioListener listener) {
        this.listener = listener;
    }

    /** Records a check; returns {@code condition}. */
    public boolean that(boolean condition, String passed, String failed) {
        listener.onEvent(new ScenarioEvent.Check(condition, condition ? passed : failed));
        if (!condition) {
            problems.add(failed);
        }
        return condition;
    }

    /**
     * The completion is there, for {@code wrId}, with {@code status}; for a success also the
     * opcode and (when not negative) the byte length.
     */
    public boolean completion(Optional<WorkCompletion> polled, long wrId, WcStatus status, WcOpcode opcode,
                              int byteLength) {
        if (polled.isEmpty()) {
            return that(false, "", "wr_id " + wrId + ": expected " + status.cName() + ", but no completion came");
        }
        WorkCompletion wc = polled.get();
        StringBuilder expected = new StringBuilder("wr_id " + wrId + " " + status.cName());
        boolean ok = wc.wrId() == wrId && wc.status() == status;
        if (status == WcStatus.SUCCESS && opcode != null) {
            expected.append(' ').append(opcode.cName());
            ok &= wc.opcode() == opcode;
        }
        if (status == WcStatus.SUCCESS && byteLength >= 0) {
            expected.append(" byte_len ").append(byteLength);
            ok &= wc.byteLength() == byteLength;
        }
        String got = "wr_id " + wc.wrId() + " " + wc.status().cName()
                + (wc.status() == WcStatus.SUCCESS ? " " + wc.opcode().cName() + " byte_len "
                + Integer.toUnsignedString(wc.byteLength()) : "");
        return that(ok, "completion " + expected, "expected " + expected + ", got " + got);
    }

    /** The completion carries immediate data {@code imm}. */
    public boolean immediate(Optional<WorkCompletion> polled, int imm) {
        if (polled.isEmpty()) {
            return that(false, "", String.format("expected imm_data 0x%08x, but no completion came", imm));
        }
        WorkCompletion wc = polled.get();
        boolean has = WcFlag.has(wc.wcFlags(), WcFlag.WITH_IMM);
        return that(has && wc.immData() == imm, String.format("imm_data 0x%08x with IBV_WC_WITH_IMM", imm),
                has ? String.format("expected imm_data 0x%08x, got 0x%08x", imm, wc.immData())
                        : String.format("expected imm_data 0x%08x, but IBV_WC_WITH_IMM is not set", imm));
    }

    /** The bytes are equal; a difference names its first offset. */
    public boolean bytes(byte[] actual, byte[] expected, String what) {
        int mismatch = Arrays.mismatch(actual, expected);
        if (mismatch < 0) {
            return that(true, String.format("%s matches byte for byte (%d bytes, crc32 0x%08x)", what,
                    expected.length, crc32(expected)), "");
        }
        String detail = mismatch >= Math.min(actual.length, expected.length)
                ? String.format("%d bytes instead of %d", actual.length, expected.length)
                : String.format("first difference at offset %d: 0x%02x instead of 0x%02x", mismatch,
                        actual[mismatch] & 0xff, expected[mismatch] & 0xff);
        return that(false, "", what + " differs: " + detail + String.format(" (crc32 0x%08x, expected 0x%08x)",
                crc32(actual), crc32(expected)));
    }

    /** True when nothing failed so far. */
    public boolean allPassed() {
        return problems.isEmpty();
    }

    /** The result: as expected with {@code summary}, or not, listing what failed. */
    public ScenarioResult result(String summary) {
        if (problems.isEmpty()) {
            return ScenarioResult.expected(summary);
        }
        return ScenarioResult.unexpected(problems.size() == 1 ? problems.get(0)
                : problems.size() + " checks failed", problems);
    }

    static long crc32(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }
}
