package org.rdmalab.bench;

/** Thrown inside a run's threads when {@link BenchRun#stop()} asked them to end. */
final class BenchStopped extends BenchException {

    private static final long serialVersionUID = 1L;

    BenchStopped() {
        super("the benchmark was stopped");
    }
}
