package org.rdmalab.bench;

import java.util.List;
import java.util.OptionalDouble;

/**
 * Everything a finished run measured.
 *
 * @param info the header facts (null when the run stopped before the sides connected)
 * @param rows every row, in the order measured (RDMA then baseline for each size)
 * @param stopped true when {@link BenchRun#stop()} ended the run early (the rows are those finished)
 */
public record BenchReport(BenchInfo info, List<BenchRow> rows, boolean stopped) {

    public BenchReport {
        rows = List.copyOf(rows);
    }

    /** The rows of one path. */
    public List<BenchRow> rows(BenchRow.Path path) {
        return rows.stream().filter(row -> row.path() == path).toList();
    }

    /**
     * RDMA against the baseline at {@code bytes}: average bandwidth ÷ the baseline's, or t_typical ÷
     * the baseline's; empty when either row is missing.
     */
    public OptionalDouble ratio(int bytes) {
        BenchRow rdma = find(BenchRow.Path.RDMA, bytes);
        BenchRow udp = find(BenchRow.Path.BASELINE, bytes);
        if (rdma == null || udp == null || udp.headline() <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(rdma.headline() / udp.headline());
    }

    private BenchRow find(BenchRow.Path path, int bytes) {
        for (BenchRow row : rows) {
            if (row.path() == path && row.bytes() == bytes) {
                return row;
            }
        }
        return null;
    }
}
