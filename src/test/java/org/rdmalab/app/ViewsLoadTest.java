package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.Map;
import java.util.concurrent.Executors;
import javafx.scene.Parent;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rdmalab.app.bench.BenchView;
import org.rdmalab.app.bench.BenchViewModel;
import org.rdmalab.app.common.Views;
import org.rdmalab.app.lab.BuffersView;
import org.rdmalab.app.lab.BuffersViewModel;
import org.rdmalab.app.lab.CompletionsView;
import org.rdmalab.app.lab.ConnectionDataView;
import org.rdmalab.app.lab.ConnectionDataViewModel;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.PeerView;
import org.rdmalab.app.lab.ResourcesView;
import org.rdmalab.app.lab.ResourcesViewModel;
import org.rdmalab.app.lab.SetupView;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.app.lab.StepView;
import org.rdmalab.app.lab.StepViewModel;
import org.rdmalab.app.lab.TrafficView;
import org.rdmalab.app.lab.TrafficViewModel;
import org.rdmalab.app.lab.VerbsLogView;
import org.rdmalab.app.packets.PacketsView;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/** Each FXML view loads on its own with its controller, its fx:ids bound, and the app's style class. */
@ExtendWith(WindowRobot.class)
class ViewsLoadTest {

    private LabViewModel lab;
    private Views views;

    @Start
    void start(Stage stage) {
        lab = new LabViewModel(Backends.installed(), DeviceOptions.defaults().withUdpPort(org.rdmalab.testing.Ports
                .freeUdpPort()), Runnable::run, Runnable::run, LabViewModel.daemonWorkers());
        lab.apply(lab.defaultSetup());
        Map<Class<?>, Object> controllers = new java.util.HashMap<>(Map.of(
                SetupView.class, new SetupView(lab),
                StepView.class, new StepView(new StepViewModel(lab)),
                CompletionsView.class, new CompletionsView(lab),
                BuffersView.class, new BuffersView(new BuffersViewModel(lab, Runnable::run)),
                TrafficView.class, new TrafficView(new TrafficViewModel(lab, Runnable::run), lab),
                ConnectionDataView.class, new ConnectionDataView(new ConnectionDataViewModel(lab)),
                ResourcesView.class, new ResourcesView(new ResourcesViewModel(lab, Executors.newSingleThreadExecutor(),
                        Runnable::run)),
                VerbsLogView.class, new VerbsLogView(lab),
                PacketsView.class, new PacketsView(lab, new org.rdmalab.app.packets.PacketViewModel()),
                BenchView.class, new BenchView(new BenchViewModel(new org.rdmalab.bench.BenchEngine(Backends.installed()),
                        Backends.installed(), () -> {
                            throw new IllegalStateException("this test runs no benchmark");
                        }, Runnable::run, Runnable::run))));
        controllers.put(org.rdmalab.app.faults.FaultsView.class, new org.rdmalab.app.faults.FaultsView(
                new org.rdmalab.app.faults.FaultsViewModel(lab, org.rdmalab.verbs.FaultSettings.NONE)));
        controllers.put(org.rdmalab.app.lessons.ScenariosView.class, new org.rdmalab.app.lessons.ScenariosView(
                new org.rdmalab.app.lessons.ScenariosViewModel(lab, Backends.installed(), DeviceOptions.defaults(),
                        Runnable::run)));
        ladder = new org.rdmalab.app.ladder.LadderViewModel(lab, Runnable::run, Runnable::run, Runnable::run);
        org.rdmalab.app.ladder.WorkRequestsViewModel requests = new org.rdmalab.app.ladder.WorkRequestsViewModel(lab, ladder);
        controllers.put(org.rdmalab.app.ladder.LadderView.class, new org.rdmalab.app.ladder.LadderView(ladder, requests));
        controllers.put(org.rdmalab.app.ladder.WorkRequestsView.class, new org.rdmalab.app.ladder.WorkRequestsView(requests));
        controllers.put(org.rdmalab.app.packets.PacketView.class,
                new org.rdmalab.app.packets.PacketView(new org.rdmalab.app.packets.PacketViewModel()));
        views = new Views(controllers);
    }

    private org.rdmalab.app.ladder.LadderViewModel ladder;

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(lab::close);
        ladder.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"lab/SetupView:setup-view", "lab/StepView:step-view", "lab/CompletionsView:completions-view",
        "lab/BuffersView:buffers-view", "lab/TrafficView:traffic-view", "lab/ConnectionDataView:connection-data-view",
        "lab/ResourcesView:resources-view", "lab/VerbsLogView:verbs-log-view", "packets/PacketsView:packets-view",
        "packets/PacketView:packet-view",
        "bench/BenchView:bench-view", "faults/FaultsView:faults-view", "lessons/ScenariosView:scenarios-view",
        "ladder/LadderView:ladder-view", "ladder/WorkRequestsView:work-requests-view"})
    void loads(String viewAndStyle, FxRobot robot) {
        String[] parts = viewAndStyle.split(":");
        Parent[] root = new Parent[1];
        robot.interact(() -> {
            try {
                root[0] = views.load("/fxml/" + parts[0] + ".fxml");
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
        });
        assertNotNull(root[0]);
        assertEquals(true, root[0].getStyleClass().contains(parts[1]), root[0].getStyleClass().toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"server", "client"})
    void thePeerViewLoadsOncePerSide(String name, FxRobot robot) {
        SideViewModel side = lab.sides().stream().filter(each -> each.name().equals(name)).findFirst().orElseThrow();
        Parent[] root = new Parent[1];
        robot.interact(() -> {
            try {
                root[0] = views.load(PeerView.FXML, new PeerView(side, lab));
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
        });
        assertNotNull(root[0].lookup("#" + name + "Steps"));
        assertNotNull(root[0].lookup("#" + name + "LocalQp"));
    }
}
