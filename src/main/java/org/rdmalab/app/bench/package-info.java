/**
 * The Bench tab: {@code bench}'s engine run from the window.
 * {@link org.rdmalab.app.bench.BenchViewModel} runs the lifecycle (start, the status line, Stop,
 * the report, saving it as CSV or JSON); {@link org.rdmalab.app.bench.BenchForm} is what the next
 * run measures and where (loopback, or this window as a server or client over TCP), checked by
 * bench's rules; {@link org.rdmalab.app.bench.BenchDevices} lists every backend's devices;
 * {@link org.rdmalab.app.bench.BenchResults} is what the charts and the table show, with the
 * latency distribution's maths in {@code LatencyDistribution}.
 * {@link org.rdmalab.app.bench.BenchView} (its FXML in {@code fxml/bench/}) binds them and draws
 * the charts, the distribution in a {@link org.rdmalab.app.bench.DistributionChart}, and the
 * results table with its copy and {@code --verbose} lines ({@code ResultsTable}).
 *
 * <p>Threads: everything here on the JavaFX thread, except that the devices are listed and files
 * are written on the background executor. The run measures on the engine's own threads; what its
 * listener hears reaches the charts and the table through an
 * {@link org.rdmalab.app.common.EventQueue}, at most once a frame. Stop and closing the window stop
 * the run without waiting (a server waiting for its client too); every wait has its timeout.
 */
package org.rdmalab.app.bench;
