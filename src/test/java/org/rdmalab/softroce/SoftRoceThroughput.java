package org.rdmalab.softroce;

import java.time.Duration;
import java.util.List;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WorkCompletion;

/**
 * A measurement, not a test (it asserts nothing and surefire does not run it): 64 KiB RDMA WRITEs
 * between two software devices over real UDP on 127.0.0.1 and 127.0.0.2, 16 in flight, for a few
 * seconds; prints MB/s. Run it after {@code mvn test-compile} with
 * {@code java -cp target/classes:target/test-classes org.rdmalab.softroce.SoftRoceThroughput [seconds]}.
 */
public final class SoftRoceThroughput {

    private SoftRoceThroughput() {
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 5;
        int size = 64 * 1024;
        int inFlight = 16;
        Peers.Setup setup = new Peers.Setup();
        setup.mrLength = size * inFlight;
        setup.capabilities = new QpCapabilities(inFlight, 1, 1, 1, 0);
        setup.timeout = 12;
        try (Peers peers = Peers.udp(setup, SoftRoceUdpTest.freePort(), null)) {
            long posted = 0;
            long completed = 0;
            long warmupEnd = System.nanoTime() + 1_000_000_000L;
            long start = 0;
            long startCount = 0;
            long end = Long.MAX_VALUE;
            while (true) {
                while (posted - completed < inFlight) {
                    int slot = (int) (posted % inFlight);
                    peers.a.qp.postSend(SendWorkRequest.write(posted, peers.a.mr.sge(slot * size, size),
                            peers.b.mr.address() + (long) slot * size, peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
                    posted++;
                }
                List<WorkCompletion> done = new java.util.ArrayList<>(peers.a.cq.poll(inFlight));
                if (done.isEmpty()) {
                    peers.a.cq.pollOne(Duration.ofMillis(1)).ifPresent(done::add);
                }
                for (WorkCompletion wc : done) {
                    if (!wc.isSuccess()) {
                        throw new IllegalStateException(wc.toString());
                    }
                }
                completed += done.size();
                long now = System.nanoTime();
                if (start == 0 && now > warmupEnd) {
                    start = now;
                    startCount = completed;
                    end = start + (long) (seconds * 1e9);
                }
                if (now > end) {
                    double elapsed = (now - start) / 1e9;
                    double megabytes = (completed - startCount) * (double) size / 1e6;
                    System.out.printf("64 KiB RDMA WRITE over UDP loopback: %.1f MB/s (%d writes in %.2f s, "
                                    + "%d retries, %d packets sent)%n", megabytes / elapsed, completed - startCount,
                            elapsed, peers.a.counter(Counter.COMPLETER_RETRY_ERR), peers.a.counter(Counter.SENT_PKTS));
                    return;
                }
            }
        }
    }
}
