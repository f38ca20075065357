package org.rdmalab.app;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The loopback lab for a view-model test: before each test a {@link LabViewModel} over two soft0
 * devices on a free UDP port, made on a {@link TestUiThread} that stands in for the JavaFX thread;
 * after it, the lab closed and the thread ended (the test fails when the thread does not end).
 *
 * <p>Registered as a field, so it is ready before the test's own {@code @BeforeEach} methods:
 * <pre>{@code @RegisterExtension final LoopbackLab loopback = new LoopbackLab();}</pre>
 */
public final class LoopbackLab implements BeforeEachCallback, AfterEachCallback {

    private TestUiThread ui;
    private LabViewModel lab;

    @Override
    public void beforeEach(ExtensionContext context) {
        ui = new TestUiThread(Duration.ofSeconds(30));
        DeviceOptions base = DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort());
        lab = onUi(() -> new LabViewModel(Backends.installed(), base, Runnable::run, ui,
                LabViewModel.daemonWorkers()));
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        try {
            run(lab::close);
        } finally {
            if (!ui.stop()) {
                throw new AssertionError("the test's UI thread did not end within 5 s");
            }
        }
    }

    /** The lab, to be used on {@link #ui()} only. */
    public LabViewModel lab() {
        return lab;
    }

    /** The thread that stands in for the JavaFX thread. */
    public TestUiThread ui() {
        return ui;
    }

    /** Runs {@code action} on the UI thread and returns its result. */
    public <T> T onUi(Callable<T> action) {
        return ui.call(action);
    }

    /** Runs {@code action} on the UI thread. */
    public void run(Runnable action) {
        onUi(() -> {
            action.run();
            return null;
        });
    }

    /** Polls {@code condition} on the UI thread until it holds; fails naming {@code what} after 30 s. */
    public void await(String what, BooleanSupplier condition) {
        ui.await(what, condition);
    }

    /** The side named {@code name} ("server" or "client"); call on the UI thread. */
    public SideViewModel side(String name) {
        return lab.sides().stream().filter(side -> side.name().equals(name)).findFirst().orElseThrow();
    }

    /** Whether no side is running a step; call on the UI thread. */
    public boolean idle() {
        return lab.sides().stream().noneMatch(side -> side.busyProperty().get());
    }

    /** Runs every side's steps to the end (the seed's flow unless the test changed it) and waits for it. */
    public void runToTheEnd() {
        run(lab::runAllToEnd);
        await("both sides to finish", () -> lab.sides().stream().allMatch(side -> !side.busyProperty().get()
                && side.nextIndexProperty().get() == side.steps().size()));
    }
}
