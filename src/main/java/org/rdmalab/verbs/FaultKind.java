package org.rdmalab.verbs;

/**
 * What a fault does to a packet on its way out of a device that injects faults (see
 * {@link FaultControl}): the five kinds a fault spec names ({@code drop}, {@code dup},
 * {@code reorder}, {@code corrupt}, {@code delay}).
 */
public enum FaultKind {
    /** The packet is lost. */
    DROP("drop"),
    /** The packet is sent twice; the copy carries the mark. */
    DUPLICATE("dup"),
    /** The packet is held back and sent after the next one (or after 1 ms when none follows). */
    REORDER("reorder"),
    /** One bit of the packet is flipped; the receiver's ICRC check drops it. */
    CORRUPT("corrupt"),
    /** The packet leaves later by the spec's delay. */
    DELAY("delay");

    private final String specKey;

    FaultKind(String specKey) {
        this.specKey = specKey;
    }

    /** The key a fault spec gives it ({@code dup} for {@link #DUPLICATE}). */
    public String specKey() {
        return specKey;
    }
}
