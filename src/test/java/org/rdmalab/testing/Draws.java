package org.rdmalab.testing;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Random inputs for property tests in plain JUnit 5: a test runs its check over a number of tries,
 * each try drawing its inputs from one {@link SplittableRandom} seeded with the test's fixed seed,
 * so every run draws the same values and a failure happens again on the next run.
 *
 * <p>The edges are drawn often: a quarter of the numbers are an edge of their range (min, min + 1,
 * max - 1, max, and -1, 0, 1 and the 24-bit limits of PSNs, QPNs and MSNs where the range holds
 * them), an eighth lie a few steps from an edge, and the first {@link #EDGE_TRIES} tries draw edges
 * only. A failing try is reported with the test's seed, the try's number and every value it drew,
 * each under the name the test gave it, and the original failure as its cause.
 *
 * <p>{@code -Ddraws.seed=N} runs every such test with seed N instead of its own, to look further;
 * a failure found that way names N, which then becomes a test's seed to keep it. One instance per
 * test, on the test's thread.
 */
public final class Draws {

    /** The number of first tries that draw edges only. */
    public static final int EDGE_TRIES = 32;

    /** How far from an edge a "near the edge" number lies at most. */
    private static final int NEAR = 8;

    /** The 24-bit space of PSNs, QPNs and MSNs, and its signed half, where arithmetic wraps. */
    private static final long U24 = 1L << 24;
    private static final long HALF24 = 1L << 23;

    /** A check run for each try; it draws its inputs from the {@code Draws} it is given. */
    @FunctionalInterface
    public interface Check {
        void run(Draws draws) throws Exception;
    }

    private final SplittableRandom random;
    private final List<String> drawn = new ArrayList<>();
    private boolean edgesOnly;
    private int tryIndex;

    private Draws(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /**
     * Runs {@code check} {@code tries} times with inputs drawn from {@code seed} (or from
     * {@code -Ddraws.seed}); the first failing try fails the test, naming the seed, the try and its
     * inputs.
     */
    public static void forAll(long seed, int tries, Check check) {
        if (tries <= 0) {
            throw new IllegalArgumentException("tries must be positive, not " + tries);
        }
        String override = System.getProperty("draws.seed");
        long used = override == null || override.isBlank() ? seed : Long.decode(override.strip());
        Draws draws = new Draws(used);
        for (int i = 0; i < tries; i++) {
            draws.drawn.clear();
            draws.edgesOnly = i < EDGE_TRIES;
            draws.tryIndex = i;
            try {
                check.run(draws);
            } catch (Exception | AssertionError e) {
                throw new AssertionError("try " + (i + 1) + " of " + tries + " with seed 0x"
                        + Long.toHexString(used) + " failed; it drew " + String.join(", ", draws.drawn)
                        + ": " + e, e);
            }
        }
    }

    /** An int in {@code min..max} (both included), edges drawn often. */
    public int ints(String name, int min, int max) {
        int value = (int) draw(min, max);
        record(name, value, Integer.toHexString(value));
        return value;
    }

    /** Any int, edges drawn often. */
    public int ints(String name) {
        return ints(name, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    /** A long in {@code min..max} (both included), edges drawn often. */
    public long longs(String name, long min, long max) {
        long value = draw(min, max);
        record(name, value, Long.toHexString(value));
        return value;
    }

    /** Any long, edges drawn often. */
    public long longs(String name) {
        return longs(name, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /** True or false, each half of the time. */
    public boolean booleans(String name) {
        boolean value = random.nextBoolean();
        drawn.add(name + "=" + value);
        return value;
    }

    /**
     * One of {@code choices}: the first or the last in the edge-only tries, then each in turn (so
     * every choice is drawn once there are {@link #EDGE_TRIES} + its size tries), then any, each as
     * likely.
     */
    public <T> T oneOf(String name, List<T> choices) {
        if (choices.isEmpty()) {
            throw new IllegalArgumentException("nothing to choose from for " + name);
        }
        int last = choices.size() - 1;
        int index;
        if (edgesOnly) {
            index = random.nextBoolean() ? 0 : last;
        } else if (tryIndex - EDGE_TRIES < choices.size()) {
            index = tryIndex - EDGE_TRIES;
        } else {
            index = random.nextInt(choices.size());
        }
        T value = choices.get(index);
        drawn.add(name + "=" + value);
        return value;
    }

    private void record(String name, long value, String hex) {
        drawn.add(name + "=" + value + (value < -9 || value > 9 ? " (0x" + hex + ")" : ""));
    }

    private long draw(long min, long max) {
        if (min > max) {
            throw new IllegalArgumentException("empty range " + min + ".." + max);
        }
        List<Long> edges = edges(min, max);
        int pick = random.nextInt(8);
        if (edgesOnly || pick < 2) {
            return edges.get(random.nextInt(edges.size()));
        }
        if (pick == 2) {
            long edge = edges.get(random.nextInt(edges.size()));
            long step = (1 + random.nextInt(NEAR)) * (random.nextBoolean() ? 1L : -1L);
            try {
                long near = Math.addExact(edge, step);
                if (near >= min && near <= max) {
                    return near;
                }
            } catch (ArithmeticException beyondLong) {
                // the edge is Long.MIN_VALUE or Long.MAX_VALUE: draw uniformly instead
            }
        }
        return uniform(min, max);
    }

    private long uniform(long min, long max) {
        if (min == Long.MIN_VALUE && max == Long.MAX_VALUE) {
            return random.nextLong();
        }
        if (max - min + 1 > 0) { // the span fits in a long
            return min + random.nextLong(max - min + 1);
        }
        long value;
        do {
            value = random.nextLong();
        } while (value < min || value > max);
        return value;
    }

    private static List<Long> edges(long min, long max) {
        Set<Long> edges = new LinkedHashSet<>();
        edges.add(min);
        edges.add(max);
        if (min < max) {
            edges.add(min + 1);
            edges.add(max - 1);
        }
        long[] inner = {-1, 0, 1, U24 - 2, U24 - 1, U24, U24 + 1, HALF24 - 1, HALF24, -HALF24, -HALF24 - 1};
        for (long value : inner) {
            if (value >= min && value <= max) {
                edges.add(value);
            }
        }
        return List.copyOf(edges);
    }
}
