package org.rdmalab.cli;

import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code --poll-timeout MS}: how long one completion is polled for, one declaration and one check
 * for {@code demo} (2000 ms, the seed's MAX_POLL_CQ_TIMEOUT) and {@code doctor} (5000 ms, given to
 * the constructor). {@code loopback}'s option has its own declaration: its default is not a number
 * but depends on {@code --fault}.
 */
final class PollTimeoutOption {

    /** The seed's MAX_POLL_CQ_TIMEOUT. */
    static final long SEED_MILLIS = 2000;

    @Option(names = "--poll-timeout", paramLabel = "MS",
            description = "How long one completion is polled for, in ms (default ${DEFAULT-VALUE}).")
    private long millis;

    PollTimeoutOption() {
        this(SEED_MILLIS);
    }

    PollTimeoutOption(long defaultMillis) {
        millis = defaultMillis;
    }

    /** The milliseconds given; a usage error below 1. */
    long millis() {
        if (millis < 1) {
            throw new IllegalArgumentException("--poll-timeout must be at least 1 ms");
        }
        return millis;
    }

    /** {@link #millis()} as a duration. */
    Duration duration() {
        return Duration.ofMillis(millis());
    }
}
