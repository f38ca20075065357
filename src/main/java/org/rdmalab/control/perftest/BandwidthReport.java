package org.rdmalab.control.perftest;

/**
 * The bandwidth row one perftest side sends the other at the end of a run ({@code xchg_bw_reports}):
 * a half-duplex server prints the client's row as its own. Rates are in the report's unit: MB/sec
 * (2^20 bytes per second) or, with {@code --report_gbits}, Gb/sec (10^9 bits per second); both sides
 * must use the same.
 *
 * @param size the message size in bytes
 * @param iterations the messages measured
 * @param peak the peak bandwidth
 * @param average the average bandwidth
 * @param messageRateMpps the message rate in millions per second
 */
public record BandwidthReport(long size, long iterations, double peak, double average, double messageRateMpps) {

    /** What this side sends when it measured nothing (a one-sided server; the client ignores it): zeros. */
    public static final BandwidthReport NONE = new BandwidthReport(0, 0, 0, 0, 0);
}
