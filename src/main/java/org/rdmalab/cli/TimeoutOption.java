package org.rdmalab.cli;

import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code --timeout SECONDS}: how long a side waits for its peer to connect or answer, one
 * declaration and one check for {@code demo}, {@code doctor} (30 s) and {@code bench} (60 s, given
 * to the constructor; the help shows each command's own default).
 */
final class TimeoutOption {

    static final int DEFAULT_SECONDS = 30;

    @Option(names = "--timeout", paramLabel = "SECONDS",
            description = "Seconds to wait for the peer to connect or answer (default ${DEFAULT-VALUE}).")
    private int seconds;

    TimeoutOption() {
        this(DEFAULT_SECONDS);
    }

    TimeoutOption(int defaultSeconds) {
        seconds = defaultSeconds;
    }

    /** The seconds given; a usage error below 1. */
    int seconds() {
        if (seconds < 1) {
            throw new IllegalArgumentException("--timeout must be at least 1 second");
        }
        return seconds;
    }

    /** {@link #seconds()} as a duration. */
    Duration duration() {
        return Duration.ofSeconds(seconds());
    }
}
