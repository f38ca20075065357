package org.rdmalab.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.rdmalab.testing.StandInVerbs;

/**
 * A smoke run of {@link NativePairBenchmark} (a few seconds, in this JVM): the generated harness
 * runs, both sides make their pairs on the stand-in (a pair that does not complete fails the run),
 * and the ratio line is printed. It checks no speed: that is the benchmark's job (docs/performance.md).
 */
class NativePairBenchmarkTest {

    @Test
    void bothSidesMakeTheirPairsAndTheRatioIsComputed() throws Exception {
        StandInVerbs.requireToolchain();
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                .include(NativePairBenchmark.class.getName() + "\\.")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(200))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build()).run();

        Set<String> names = results.stream().map(result -> result.getParams().getBenchmark())
                .collect(Collectors.toSet());
        String prefix = NativePairBenchmark.class.getName() + ".";
        assertEquals(Set.of(prefix + "java", prefix + "javaList", prefix + "javaPost", prefix + "javaPoll", prefix + "c", prefix + "rawPair", prefix + "jffiCall"), names);
        for (RunResult result : results) {
            double score = result.getPrimaryResult().getScore();
            assertTrue(score > 0 && Double.isFinite(score), result.getParams().getBenchmark() + ": " + score);
        }
        String ratio = NativePairBenchmark.ratio(results);
        assertTrue(ratio.matches("Java pair [0-9.]+ ± [0-9.NaN]+ ns, C pair [0-9.]+ ± [0-9.NaN]+ ns\\R"
                + "list-shaped Java pair [0-9.]+ ns \\(ratio [0-9.]+\\)\\R"
                + "API post \\+ raw poll [0-9.]+ ns, raw post \\+ API poll [0-9.]+ ns\\R"
                + "raw pair through jffi [0-9.]+ ns \\(floor ratio [0-9.]+\\), one jffi call [0-9.]+ ns\\R"
                + "ratio \\(Java pair / C pair\\): [0-9.]+"), ratio);
    }
}
