package org.rdmalab.ibverbs;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.rdmalab.testing.StandInVerbs;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpInitAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * What one {@code ibv_post_send} + {@code ibv_poll_cq} pair costs through the native backend,
 * against the same pair made by a C loop, in one run (issue 8: at most 1.5 × the C loop's time).
 * Both sides use the libibverbs stand-in ({@code src/test/c/standin_verbs.c}), whose provider
 * functions do the same small amount of work for each: an 8-byte RDMA WRITE between two
 * connected RC QPs, signaled, then one completion polled. {@link #java()} calls the public verbs
 * API's non-allocating path ({@code QueuePair.postSend} of one reused request,
 * {@code CompletionQueue.poll} into a kept {@code CompletionBuffer}); {@link #javaList()} its
 * list-shaped calls ({@code postSend(List)}, {@code poll(int)}); {@link #javaPost} and
 * {@link #javaPoll} make one half of the pair through the API and the other raw; {@link #c()} calls
 * {@code src/test/c/pair_loop.c}, which makes 1000 pairs on the very same QP and CQ. Two more
 * show what any binding through jffi pays: {@link #rawPair} (the pair from Java with the work
 * request built once in native memory) and {@link #jffiCall} (one call of an empty C function).
 * {@link #main} runs them and prints the ratio; docs/performance.md says how to run it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class NativePairBenchmark {

    /** Pairs per call into the C loop. */
    static final int C_PAIRS = 1000;
    private static final int BYTES = 8;
    private static final int RW = AccessFlag.LOCAL_WRITE.value() | AccessFlag.REMOTE_WRITE.value()
            | AccessFlag.REMOTE_READ.value();

    /** {@code src/test/c/pair_loop.c}. Public only for jnr-ffi. */
    public interface PairLoop {
        /** {@code long pair_loop(qp, cq, local, lkey, length, remote, rkey, count)}. */
        long pair_loop(Pointer qp, Pointer cq, long local, int lkey, int length, long remote, int rkey, long count);
    }

    private Path dir;
    private Context context;
    private CompletionQueue cq;
    private MemoryRegion source;
    private MemoryRegion target;
    private QueuePair sender;
    private SendWorkRequest write;
    private final CompletionBuffer completions = new CompletionBuffer(1);
    private PairLoop loop;
    private Pointer senderPointer;
    private Pointer cqPointer;
    private long noop;
    private OpsTable ops;
    private long senderAddress;
    private long cqAddress;
    private NativeMemory rawMemory;
    private long rawWr;
    private long rawWc;
    private static final long RAW_BAD_WR = StructSize.SEND_WR.size + StructSize.SGE.size;
    /** {@code post_send}'s signature, errno not saved, as the ops table calls it. */
    private static final CallContext NOOP_SIGNATURE = CallContext.getCallContext(Type.SINT32,
            new Type[] {Type.POINTER, Type.POINTER, Type.POINTER}, CallingConvention.DEFAULT, false);

    /** Builds the stand-in and the C loop, and connects two RC QPs on the stand-in's first device. */
    @Setup(Level.Trial)
    public void open() throws Exception {
        dir = Files.createTempDirectory("rdmalab-jmh");
        Path library = StandInVerbs.build(dir);
        Path pairLoop = StandInVerbs.compile("pair_loop.c", dir.resolve("libpair-loop.so"), "-O2");
        loop = LibraryLoader.create(PairLoop.class).failImmediately().load(pairLoop.toString());
        noop = com.kenai.jffi.Library.getCachedInstance(pairLoop.toString(), com.kenai.jffi.Library.LAZY)
                .getSymbolAddress("pair_noop");
        context = new NativeProvider(library.toString()).devices(DeviceOptions.defaults()).get(0).open();
        ProtectionDomain pd = context.allocatePd();
        cq = context.createCq(8, null, 0);
        CompletionQueue peerCq = context.createCq(8, null, 0);
        source = pd.registerMemory(64, RW);
        target = pd.registerMemory(64, RW);
        sender = pd.createQp(new QpInitAttributes(QpType.RC, cq, cq, QpCapabilities.seed(), false));
        QueuePair receiver = pd.createQp(new QpInitAttributes(QpType.RC, peerCq, peerCq, QpCapabilities.seed(),
                false));
        connect(sender, receiver);
        connect(receiver, sender);
        write = SendWorkRequest.write(7, source.sge(0, BYTES), target.address(), target.rkey(),
                SendFlag.SIGNALED.value());
        senderPointer = ((NativeQueuePair) sender).pointer();
        cqPointer = ((NativeCompletionQueue) cq).pointer();
        ops = ((NativeContext) context).ops();
        senderAddress = senderPointer.address();
        cqAddress = cqPointer.address();
        rawMemory = NativeMemory.allocate(((NativeContext) context).library().runtime,
                StructSize.SEND_WR.size + StructSize.SGE.size + 8 + StructSize.WC.size);
        rawWr = rawMemory.address();
        rawWc = rawWr + RAW_BAD_WR + 8;
        long sge = rawWr + StructSize.SEND_WR.size;
        StructField.SGE_ADDR.putAt(sge, source.address());
        StructField.SGE_LENGTH.putAt(sge, BYTES);
        StructField.SGE_LKEY.putAt(sge, source.lkey());
        StructField.SEND_WR_WR_ID.putAt(rawWr, 7);
        StructField.SEND_WR_SG_LIST.putAt(rawWr, sge);
        StructField.SEND_WR_NUM_SGE.putAt(rawWr, 1);
        StructField.SEND_WR_OPCODE.putAt(rawWr, write.opcode().value());
        StructField.SEND_WR_SEND_FLAGS.putAt(rawWr, write.sendFlags());
        StructField.SEND_WR_RDMA_REMOTE_ADDR.putAt(rawWr, target.address());
        StructField.SEND_WR_RDMA_RKEY.putAt(rawWr, target.rkey());
    }

    private static void connect(QueuePair qp, QueuePair peer) throws VerbsException {
        qp.modify(new QpAttributes().state(QpState.INIT).portNum(1).accessFlags(RW),
                QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        qp.modify(new QpAttributes().state(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(peer.qpNum())
                        .maxDestRdAtomic(1).minRnrTimer(12)
                        .addressVector(AddressVector.global(new GlobalRoute(Gid.parse("::ffff:127.0.0.1"),
                                0, 1, 64, 0), 1)),
                QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                        QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        qp.modify(new QpAttributes().state(QpState.RTS).timeout(14).retryCount(7).rnrRetry(7).maxRdAtomic(1),
                QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                        QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC));
    }

    /**
     * The floor of any binding through jffi: the same pair with the work request built once in
     * native memory, two jffi calls through the ops table, nothing read back.
     */
    @Benchmark
    public int rawPair() {
        int rc = ops.postSend(senderAddress, rawWr, rawWr + RAW_BAD_WR);
        int polled = ops.pollCq(cqAddress, 1, rawWc);
        if (rc != 0 || polled != 1 || StructField.WC_STATUS.getIntAt(rawWc) != 0) {
            throw new IllegalStateException("the raw pair did not complete: " + rc + ", " + polled);
        }
        return polled;
    }

    /**
     * Half of {@link #java}, to tell which half costs what: the API's post (one request, no list),
     * then the raw poll of {@link #rawPair}.
     */
    @Benchmark
    public int javaPost() throws VerbsException {
        sender.postSend(write);
        int polled = ops.pollCq(cqAddress, 1, rawWc);
        if (polled != 1 || StructField.WC_STATUS.getIntAt(rawWc) != 0) {
            throw new IllegalStateException("the pair did not complete: " + polled);
        }
        return polled;
    }

    /** The other half of {@link #java}: the raw post of {@link #rawPair}, then the API's poll into a buffer. */
    @Benchmark
    public int javaPoll() throws VerbsException {
        int rc = ops.postSend(senderAddress, rawWr, rawWr + RAW_BAD_WR);
        int polled = cq.poll(completions);
        if (rc != 0 || polled != 1 || !completions.isSuccess(0)) {
            throw new IllegalStateException("the pair did not complete: " + rc + ", " + completions);
        }
        return polled;
    }

    /** One jffi call of a C function that does nothing, with post_send's signature, errno saved as the binding does. */
    @Benchmark
    public long jffiCall() {
        return Invoker.getInstance().invokeN3(NOOP_SIGNATURE, noop, 1, 2, 3);
    }

    /** Closes the context (and with it every verbs object) and removes the built libraries. */
    @TearDown(Level.Trial)
    public void close() throws IOException {
        if (context != null) {
            context.close();
        }
        if (rawMemory != null) {
            rawMemory.close();
        }
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    /**
     * One pair through the binding's non-allocating path, as a perftest-style loop makes it:
     * {@code QueuePair.postSend} of the one request it reuses, then
     * {@code CompletionQueue.poll(CompletionBuffer)} into the buffer it keeps.
     */
    @Benchmark
    public int java() throws VerbsException {
        sender.postSend(write);
        int polled = cq.poll(completions);
        if (polled != 1 || !completions.isSuccess(0) || completions.wrId(0) != 7) {
            throw new IllegalStateException("the pair did not complete: " + completions);
        }
        return polled;
    }

    /**
     * The same pair through the list-shaped calls: {@code QueuePair.postSend(List)} of a one-element
     * list, then {@code CompletionQueue.poll(1)}, which returns a list of records.
     */
    @Benchmark
    public WorkCompletion javaList() throws VerbsException {
        sender.postSend(List.of(write));
        List<WorkCompletion> polled = cq.poll(1);
        if (polled.size() != 1 || polled.get(0).status() != WcStatus.SUCCESS || polled.get(0).wrId() != 7) {
            throw new IllegalStateException("the pair did not complete: " + polled);
        }
        return polled.get(0);
    }

    /** {@value #C_PAIRS} pairs in C on the same QP and CQ; JMH divides the time by that. */
    @Benchmark
    @OperationsPerInvocation(C_PAIRS)
    public long c() {
        long done = loop.pair_loop(senderPointer, cqPointer, source.address(), source.lkey(), BYTES,
                target.address(), target.rkey(), C_PAIRS);
        if (done != C_PAIRS) {
            throw new IllegalStateException("the C loop's pair " + (-1 - done) + " did not complete");
        }
        return done;
    }

    /**
     * Runs the benchmarks (JMH's command-line options apply, e.g. {@code -f 1 -wi 2 -i 3},
     * {@code -prof jfr}) and prints the ratio of the Java pair's time to the C pair's.
     */
    public static void main(String[] args) throws Exception {
        CommandLineOptions line = new CommandLineOptions(args);
        OptionsBuilder builder = new OptionsBuilder();
        builder.parent(line);
        if (line.getIncludes().isEmpty()) {
            builder.include(NativePairBenchmark.class.getName() + "\\.");
        }
        Options options = builder.build();
        Collection<RunResult> results = new Runner(options).run();
        System.out.println(ratio(results));
    }

    /**
     * The figures of the run and {@code ratio (Java pair / C pair): X}; with {@link #javaList} in
     * the run, also its ratio; with {@link #javaPost} and {@link #javaPoll}, their times; with {@link #rawPair} and {@link #jffiCall}, also the floor of the
     * ratio that any jffi binding has.
     */
    static String ratio(Collection<RunResult> results) {
        Result<?> java = score(results, "java");
        Result<?> c = score(results, "c");
        if (java == null || c == null) {
            return "ratio: not computed (run both java and c)";
        }
        StringBuilder text = new StringBuilder(String.format("Java pair %.1f ± %.1f ns, C pair %.1f ± %.1f ns",
                java.getScore(), java.getScoreError(), c.getScore(), c.getScoreError()));
        Result<?> list = score(results, "javaList");
        if (list != null) {
            text.append(String.format("%nlist-shaped Java pair %.1f ns (ratio %.2f)", list.getScore(),
                    list.getScore() / c.getScore()));
        }
        Result<?> post = score(results, "javaPost");
        Result<?> poll = score(results, "javaPoll");
        if (post != null && poll != null) {
            text.append(String.format("%nAPI post + raw poll %.1f ns, raw post + API poll %.1f ns", post.getScore(),
                    poll.getScore()));
        }
        Result<?> raw = score(results, "rawPair");
        Result<?> call = score(results, "jffiCall");
        if (raw != null && call != null) {
            text.append(String.format("%nraw pair through jffi %.1f ns (floor ratio %.2f), one jffi call %.1f ns",
                    raw.getScore(), raw.getScore() / c.getScore(), call.getScore()));
        }
        text.append(String.format("%nratio (Java pair / C pair): %.2f", java.getScore() / c.getScore()));
        return text.toString();
    }

    private static Result<?> score(Collection<RunResult> results, String method) {
        String name = NativePairBenchmark.class.getName() + "." + method;
        for (RunResult result : results) {
            if (result.getParams().getBenchmark().equals(name)) {
                return result.getPrimaryResult();
            }
        }
        return null;
    }
}
