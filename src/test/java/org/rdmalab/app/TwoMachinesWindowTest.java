package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.cli.Main;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;
import picocli.CommandLine;

/**
 * The window as the client of two machines against RDMA Lab's {@code demo} server in the same JVM
 * (127.0.0.1 and 127.0.0.2), set up and run with clicks, over the lab and the seed protocols.
 */
@ExtendWith(WindowRobot.class)
class TwoMachinesWindowTest {

    private MainWindow window;
    private int udpPort;

    @Start
    void start(Stage stage) throws Exception {
        udpPort = Ports.freeUdpPort();
        window = MainWindow.create(Backends.installed(), DeviceOptions.defaults().withUdpPort(udpPort));
        stage.setScene(window.scene());
        stage.show();
    }

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(window::close);
    }

    private static void waitFor(String what, BooleanSupplier condition) {
        FxWait.waitFor(what, 60, condition);
    }

    private static void type(FxRobot robot, String field, String text) {
        TextField node = robot.lookup(field).queryAs(TextField.class);
        robot.interact(node::clear);
        robot.clickOn(node).write(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"lab", "seed"})
    void theWindowAsClientRunsTheSeedAgainstADemoServer(String protocol, FxRobot robot) throws Exception {
        waitFor("the devices", () -> !window.lab().setup().gids().isEmpty());
        int tcpPort = Ports.freeTcpPort();
        StringWriter serverOut = new StringWriter();
        CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> {
            CommandLine demo = Main.commandLine();
            demo.setOut(new PrintWriter(serverOut, true));
            demo.setErr(new PrintWriter(serverOut, true));
            return demo.execute("demo", "127.0.0.1", "soft0", "--protocol", protocol, "--flow", "write-only",
                    "--tcp-port", Integer.toString(tcpPort), "--udp-port", Integer.toString(udpPort),
                    "--timeout", "60");
        });

        robot.clickOn("#twoMachinesMode");
        robot.clickOn("#clientRole");
        type(robot, "#localIpField", "127.0.0.2");
        type(robot, "#peerIpField", "127.0.0.1");
        type(robot, "#tcpPortField", Integer.toString(tcpPort));
        robot.interact(() -> window.lab().setup().protocolProperty().set(
                org.rdmalab.control.ControlProtocol.parse(protocol)));
        robot.clickOn("#useRecommendedGid");
        robot.clickOn("#applyButton");
        waitFor("one side", () -> window.lab().sides().size() == 1);
        SideViewModel local = window.lab().sides().get(0);
        assertEquals("local", local.name());
        robot.clickOn("#runAllButton");
        waitFor("the client to finish", () -> !local.busyProperty().get()
                && (local.nextIndexProperty().get() == local.steps().size() || local.failedIndex() >= 0));
        assertEquals(-1, local.failedIndex(), () -> local.steps().get(local.failedIndex()).summaryProperty().get());
        assertEquals(QpState.RTS, local.localStateProperty().get());
        assertEquals(QpState.RTS, local.peerStateProperty().get(), protocol.equals("lab")
                ? "the lab protocol reports the server's QP state" : "sync 'Q' implies the server reached RTS");
        // The lab protocol's server answers the window's buffer requests until the window says bye:
        // Reset says it (the seed's server ends after its last sync).
        robot.clickOn("#localReset");
        assertEquals(0, server.get(60, TimeUnit.SECONDS), serverOut.toString());
        assertTrue(serverOut.toString().contains("Contents of server buffer: 'HelloWorld'"), serverOut.toString());
    }
}
