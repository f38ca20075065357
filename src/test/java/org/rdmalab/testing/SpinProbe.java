package org.rdmalab.testing;

/**
 * A fixed amount of Java arithmetic, timed round by round, for the rxe VM's speed probe
 * (src/test/vm/rxe-tests.sh): the later rounds run compiled code, so a VM whose shell work is as
 * fast as usual but whose compiled Java is slow shows it here. Prints one line:
 * {@code java loop: best round N ms of R (first F ms)}.
 */
public final class SpinProbe {

    /** Where the rounds' sums go, so that the compiler cannot drop the work. */
    static volatile long sink;

    private SpinProbe() {
    }

    /** One round: a linear congruential sequence folded into a sum, so that nothing can be left out. */
    static long round(long seed, int steps) {
        long x = seed;
        long sum = 0;
        for (int i = 0; i < steps; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            sum += x >>> 33;
        }
        return sum;
    }

    public static void main(String[] args) {
        int rounds = 8;
        int steps = 5_000_000;
        long best = Long.MAX_VALUE;
        long first = 0;
        long folded = 0;
        for (int r = 0; r < rounds; r++) {
            long start = System.nanoTime();
            folded ^= round(r, steps);
            long millis = (System.nanoTime() - start) / 1_000_000;
            if (r == 0) {
                first = millis;
            }
            best = Math.min(best, millis);
        }
        sink = folded;
        System.out.println("java loop: best round " + best + " ms of " + rounds + " (first " + first + " ms)");
    }
}
