package org.rdmalab.bench;

/** What a benchmark measures: bandwidth ({@code --bw}) or latency ({@code --lat}). */
public enum BenchMode {
    BW("BW"),
    LAT("Latency");

    private final String title;

    BenchMode(String title) {
        this.title = title;
    }

    /** "BW" or "Latency", as in perftest's title line ("RDMA_Write BW Test"). */
    public String title() {
        return title;
    }
}
