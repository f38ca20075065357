/**
 * The measuring engine behind {@code bench}: perftest's tests (ib_write / read / send / atomic, bw
 * and lat) through the verbs API only, so they run on the software device and on the native backend
 * alike, and a raw UDP baseline of the same traffic pattern in the same run.
 *
 * <p>Start a run with {@link org.rdmalab.bench.BenchEngine#start} ({@link
 * org.rdmalab.bench.BenchSettings} says what, {@link org.rdmalab.bench.Topology} where: both sides in
 * this process, or server / client over TCP with RDMA Lab's control protocol or, with
 * {@code Topology.Exchange.PERFTEST}, perftest's, so that one of perftest's ib_* programs is the peer
 * ({@code PerftestSide} follows their steps); {@code Topology.loopback},
 * {@code server} and {@code client} apply bench's rules for the addresses, for the command line and
 * the window alike). The returned {@link
 * org.rdmalab.bench.BenchRun} can be stopped from any thread and completes with a {@link
 * org.rdmalab.bench.BenchReport}. While it runs, a {@link org.rdmalab.bench.BenchListener} hears the
 * header facts, {@link org.rdmalab.bench.LiveSample}s a few times a second and one {@link
 * org.rdmalab.bench.BenchRow} per size and path (with {@code --run_infinitely}, one per interval
 * until the run is stopped). {@link org.rdmalab.bench.LatencyStats} and {@link
 * org.rdmalab.bench.BandwidthStats} compute perftest's figures; {@link org.rdmalab.bench.BenchFormat}
 * prints its tables and {@link org.rdmalab.bench.BenchJson} its JSON keys. The traffic itself is
 * {@code RdmaTraffic}, one side's entry, with its loops {@code BandwidthLoop} and {@code LatencyLoop},
 * {@code TrafficQueues} (posts, polls, receives and waits) and {@code SampleTimes} (the stamped
 * times); {@code UdpBaseline} runs the same patterns over plain UDP.
 *
 * <p>Threads: a run uses its own threads ({@code rdmalab-bench}, and in a loopback run
 * {@code rdmalab-bench-server} and {@code rdmalab-bench-client}); the listener is called on them and
 * must return quickly. The measuring loops busy-poll (spin, then yield) and never sleep; every wait
 * for the peer has a timeout. Every socket and verbs object is closed on every path.
 *
 * <p>Depends on {@code verbs} and {@code control} only: no backend, no JavaFX, no picocli.
 */
package org.rdmalab.bench;
