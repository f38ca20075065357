package org.rdmalab.doctor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a system tool ({@code ip}, {@code nft}, {@code iptables-save}) and returns its output; tests
 * pass a fake that answers from a table.
 */
@FunctionalInterface
public interface CommandRunner {

    /** How long one tool may run before it is killed. */
    Duration TIMEOUT = Duration.ofSeconds(5);

    /**
     * What a tool printed.
     *
     * @param found false when the tool is not installed (nothing ran)
     * @param exitCode its exit status (-1 when it did not run or was killed at the timeout)
     * @param output stdout and stderr together
     */
    record Result(boolean found, int exitCode, String output) {

        /** The tool is not installed. */
        public static Result notFound() {
            return new Result(false, -1, "");
        }

        /** The tool ran and exited 0. */
        public boolean ok() {
            return found && exitCode == 0;
        }
    }

    /** Runs {@code command} (program and arguments) and waits at most {@link #TIMEOUT}. */
    Result run(List<String> command);

    /** Runs real programs through {@link ProcessBuilder}; the process is killed at the timeout. */
    static CommandRunner system() {
        return command -> {
            Process process;
            try {
                process = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            } catch (IOException e) {
                return Result.notFound();
            }
            try (InputStream in = process.getInputStream()) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                Thread reader = new Thread(() -> {
                    try {
                        in.transferTo(out);
                    } catch (IOException e) {
                        // The process was killed; what arrived so far is kept.
                    }
                }, "doctor-" + command.get(0));
                reader.setDaemon(true);
                reader.start();
                if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    reader.join(1000);
                    return new Result(true, -1, out.toString(StandardCharsets.UTF_8));
                }
                reader.join(1000);
                return new Result(true, process.exitValue(), out.toString(StandardCharsets.UTF_8));
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                return new Result(true, -1, "");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                process.destroy();
            }
        };
    }
}
