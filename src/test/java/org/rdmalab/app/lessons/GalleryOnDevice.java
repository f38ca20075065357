package org.rdmalab.app.lessons;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.stage.Stage;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.settings.LabSettings;
import org.rdmalab.app.settings.SettingsStore;

/**
 * Runs the Lessons tab's scenario gallery on one device, as a user picking it in the gallery's
 * Device list and pressing Run to the end on each scenario, headless: for trying the gallery on a
 * kernel device such as rxe0, where no display is at hand (the rxe VM, docs/rxe-vm-testing.md):
 *
 * <pre>
 * java -cp target/rdma-lab.jar:target/test-classes org.rdmalab.app.lessons.GalleryOnDevice rxe0 [NAME ...]
 * </pre>
 *
 * Prints one line per scenario (as expected, or what differed) and exits 0 when every one ran as
 * expected, 1 when one did not, 2 when the device is not in the gallery's list.
 */
public final class GalleryOnDevice {

    private static final long DEVICE_WAIT_S = 120;
    private static final long SCENARIO_WAIT_S = 600;

    private GalleryOnDevice() {
    }

    public static void main(String[] args) throws Exception {
        String device = args[0];
        List<String> names = List.of(args).subList(1, args.length);
        System.setProperty("glass.platform", "Monocle");
        System.setProperty("monocle.platform", "Headless");
        System.setProperty("prism.order", "sw");
        System.setProperty("headless.geometry", MainWindow.WIDTH + "x" + MainWindow.HEIGHT + "-32");
        CompletableFuture<MainWindow> opened = new CompletableFuture<>();
        Platform.setImplicitExit(false);
        Platform.startup(() -> {
            try {
                MainWindow window = MainWindow.create(null, LabSettings.defaults(), SettingsStore.inMemory());
                Stage stage = new Stage();
                stage.setScene(window.scene());
                stage.show();
                opened.complete(window);
            } catch (Exception e) {
                opened.completeExceptionally(e);
            }
        });
        MainWindow window = opened.get(DEVICE_WAIT_S, TimeUnit.SECONDS);
        ScenariosViewModel gallery = window.scenarios();
        int status = 0;
        try {
            if (!waitFor(DEVICE_WAIT_S, () -> gallery.devices().contains(device))) {
                System.err.println("GalleryOnDevice: " + device + " is not in the gallery's devices "
                        + onFx(() -> new ArrayList<>(gallery.devices())));
                status = 2;
                return;
            }
            List<String> all = onFx(() -> gallery.entries().stream().map(ScenariosViewModel.Entry::name).toList());
            for (String name : names.isEmpty() ? all : names) {
                long started = System.nanoTime();
                onFx(() -> {
                    gallery.deviceProperty().set(device);
                    gallery.entries().stream().filter(entry -> entry.name().equals(name)).findFirst()
                            .ifPresent(gallery.selectedProperty()::set);
                    gallery.runToEnd();
                    return null;
                });
                boolean ended = waitFor(SCENARIO_WAIT_S, () -> {
                    ScenariosViewModel.Phase phase = gallery.phaseProperty().get();
                    return phase == ScenariosViewModel.Phase.CHECKED || phase == ScenariosViewModel.Phase.STOPPED;
                });
                String line = onFx(() -> gallery.phaseProperty().get() + " " + (gallery.asExpectedProperty().get()
                        ? "as expected" : "NOT as expected") + ": " + gallery.outcomeProperty().get()
                        + (gallery.problems().isEmpty() ? "" : " (" + String.join("; ", gallery.problems()) + ")"));
                boolean good = ended && onFx(() -> gallery.phaseProperty().get() == ScenariosViewModel.Phase.CHECKED
                        && gallery.asExpectedProperty().get());
                System.out.printf("%-20s %s (%.1f s)%n", name, ended ? line : "did not end within "
                        + SCENARIO_WAIT_S + " s", (System.nanoTime() - started) / 1e9);
                if (!good) {
                    status = 1;
                }
            }
        } finally {
            onFx(() -> {
                window.close();
                return null;
            });
            Platform.exit();
            System.exit(status);
        }
    }

    private interface FxCall<T> {
        T call() throws Exception;
    }

    private static <T> T onFx(FxCall<T> call) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Platform.runLater(() -> {
            try {
                result.complete(call.call());
            } catch (Exception | Error e) {
                result.completeExceptionally(e);
            }
        });
        return result.get(60, TimeUnit.SECONDS);
    }

    private static boolean waitFor(long seconds, java.util.function.BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (onFx(condition::getAsBoolean)) {
                return true;
            }
            Thread.sleep(200);
        }
        return false;
    }
}
