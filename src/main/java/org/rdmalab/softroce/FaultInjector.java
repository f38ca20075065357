package org.rdmalab.softroce;

import java.util.Locale;
import java.util.SplittableRandom;
import org.rdmalab.verbs.FaultSettings;

/**
 * Seeded, reproducible random faults on a device's outgoing datagrams, drawn as
 * {@link FaultSettings} give them (a spec such as
 * {@code drop=0.05,dup=0.01,reorder=0.02,corrupt=0.001,delay=2ms,seed=7}; its keys and syntax are
 * documented there). Decisions are drawn in a fixed order per datagram, so the same seed and the
 * same traffic give the same faults. Used on the device's transport thread only.
 */
public final class FaultInjector {

    /** The keys a spec may use. */
    public static final String VALID_KEYS = FaultSettings.VALID_KEYS;

    private final FaultSettings settings;
    private final SplittableRandom random;

    /** Draws from {@code settings}, starting from their seed. */
    FaultInjector(FaultSettings settings) {
        this.settings = settings;
        this.random = new SplittableRandom(settings.seed());
    }

    /**
     * Parses a spec; an empty spec gives null (no faults).
     *
     * @throws IllegalArgumentException with one line naming the bad key or value and the valid keys
     */
    public static FaultInjector parse(String spec) {
        if (spec == null || spec.isBlank()) {
            return null;
        }
        return new FaultInjector(FaultSettings.parse(spec));
    }

    /** What it draws from. */
    FaultSettings settings() {
        return settings;
    }

    /** Draws whether the next datagram is lost. */
    boolean drawDrop() {
        return settings.drop() > 0 && random.nextDouble() < settings.drop();
    }

    /** Draws whether it is sent twice. */
    boolean drawDuplicate() {
        return settings.duplicate() > 0 && random.nextDouble() < settings.duplicate();
    }

    /** Draws whether it is held back behind the next one. */
    boolean drawReorder() {
        return settings.reorder() > 0 && random.nextDouble() < settings.reorder();
    }

    /** Draws a bit index to flip in a datagram of {@code length} bytes, or -1. */
    int drawCorruptBit(int length) {
        if (settings.corrupt() > 0 && random.nextDouble() < settings.corrupt()) {
            return random.nextInt(length * 8);
        }
        return -1;
    }

    /** The extra delay of every datagram. */
    long delayNanos() {
        return settings.delayNanos();
    }

    /** The seed. */
    public long seed() {
        return settings.seed();
    }

    /** The spec in canonical form. */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "drop=%s,dup=%s,reorder=%s,corrupt=%s,delay=%dns,seed=%d",
                settings.drop(), settings.duplicate(), settings.reorder(), settings.corrupt(), settings.delayNanos(),
                settings.seed());
    }
}
