package org.rdmalab.ladder;

/**
 * A wait the protocol made before a retransmission, drawn as the gap it is.
 *
 * @param kind what the requester waited for
 * @param durationNanos how long, from the packet {@code fromIndex} to the retransmission
 * @param fromIndex the ladder index of the packet the wait started at
 */
public record Gap(Kind kind, long durationNanos, long fromIndex) {

    /** Why the requester waited. */
    public enum Kind {
        /** No reply came: the requester's retransmit timer ran out (IBA 9.7.6.1.3). */
        RETRANSMIT_TIMEOUT("retransmit timeout"),
        /** An RNR NAK came: the requester waited its timer before sending again. */
        RNR_WAIT("RNR wait"),
        /** A PSN sequence error NAK came: the requester went back to the PSN it names. */
        AFTER_NAK("resent after NAK"),
        /** Part of a READ's responses went missing: the requester asked again from the first missing PSN. */
        READ_REREQUEST("READ re-request");

        private final String words;

        Kind(String words) {
            this.words = words;
        }

        /** "retransmit timeout", "RNR wait", ... */
        public String words() {
            return words;
        }
    }
}
