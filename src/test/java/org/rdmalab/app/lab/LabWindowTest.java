package org.rdmalab.app.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.BooleanSupplier;
import javafx.geometry.Bounds;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.TabPane;
import javafx.scene.control.ListView;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.FxWait;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.SeedRuns;
import org.rdmalab.app.WindowRobot;
import org.rdmalab.app.packets.CountersViewModel;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/** The lab window clicked through as a student would, headless (TestFX + Monocle). */
@ExtendWith(WindowRobot.class)
class LabWindowTest {

    /** The labels of the step pane's own tabs, not of the tabs inside them. */
    private static final String TOP_TABS = ".inspector > .tab-header-area > .headers-region > .tab .tab-label";

    private MainWindow window;

    @Start
    void start(Stage stage) throws Exception {
        window = MainWindow.create(Backends.installed(), DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort()));
        stage.setScene(window.scene());
        stage.setTitle(MainWindow.TITLE);
        // The window's own size: the stage is TestFX's, and a window test before may have left it smaller.
        stage.setWidth(MainWindow.WIDTH);
        stage.setHeight(MainWindow.HEIGHT);
        stage.show();
    }

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(window::close);
    }

    private static void waitFor(String what, BooleanSupplier condition) {
        FxWait.waitFor(what, 30, condition);
    }

    private SideViewModel side(String name) {
        return window.lab().sides().stream().filter(side -> side.name().equals(name)).findFirst().orElseThrow();
    }

    /** The cell that shows step {@code index} of a side's list (cells are reused, so found by index). */
    static javafx.scene.Node stepCell(FxRobot robot, String name, int index) {
        ListView<?> list = robot.lookup("#" + name + "Steps").queryListView();
        robot.interact(() -> list.scrollTo(Math.max(0, index - 1)));
        // The list lays its cells out for the new position in a later pulse; look on the JavaFX thread.
        javafx.scene.Node[] cell = new javafx.scene.Node[1];
        FxWait.waitForOnFx("step " + index + " of the " + name + "'s list laid out", 10, () -> {
            cell[0] = list.lookupAll(".list-cell").stream()
                    .filter(node -> ((javafx.scene.control.ListCell<?>) node).getIndex() == index && node.isVisible())
                    .findFirst().orElse(null);
            return cell[0] != null;
        });
        return cell[0];
    }

    /** Clicks the side's "Next step" until its next step is {@code index}. */
    private void nextUntil(FxRobot robot, String name, int index) {
        SideViewModel side = side(name);
        while (side.nextIndexProperty().get() < index) {
            int before = side.nextIndexProperty().get();
            robot.clickOn("#" + name + "RunNext");
            waitFor(name + " step " + before, () -> !side.busyProperty().get()
                    && (side.nextIndexProperty().get() > before || side.failedIndex() >= 0));
            assertEquals(-1, side.failedIndex(), () -> name + " failed: "
                    + side.steps().get(side.failedIndex()).summaryProperty().get());
        }
    }

    /** Clicks "Next step" on the server then the client for a step both must reach (exchange, sync). */
    private void bothNext(FxRobot robot) {
        SideViewModel server = side("server");
        SideViewModel client = side("client");
        int serverBefore = server.nextIndexProperty().get();
        int clientBefore = client.nextIndexProperty().get();
        robot.clickOn("#serverRunNext");
        robot.clickOn("#clientRunNext");
        waitFor("both sides", () -> !server.busyProperty().get() && !client.busyProperty().get()
                && server.nextIndexProperty().get() > serverBefore && client.nextIndexProperty().get() > clientBefore);
    }

    @Test
    void everyTabOfTheStepPaneShowsItsNameAtTheDefaultSizeWithNoneBehindTheOverflowMenu(FxRobot robot) {
        waitFor("the steps", () -> !window.lab().sides().isEmpty());
        TabPane inspector = robot.lookup(".inspector").queryAs(TabPane.class);
        javafx.geometry.Bounds pane = inspector.localToScreen(inspector.getLayoutBounds());
        List<javafx.scene.Node> labels = List.copyOf(robot.lookup(TOP_TABS).queryAll());
        assertEquals(inspector.getTabs().size(), labels.size());
        for (javafx.scene.Node label : labels) {
            javafx.geometry.Bounds bounds = label.localToScreen(label.getLayoutBounds());
            assertTrue(bounds.getMinX() >= pane.getMinX() && bounds.getMaxX() <= pane.getMaxX(),
                    () -> ((Label) label).getText() + " at " + bounds + " lies outside the step pane " + pane);
        }
        assertFalse(robot.lookup(".inspector .control-buttons-tab").query().isVisible(),
                "the tab list's overflow menu is shown");
    }

    /**
     * The completions table's rows have one height, from the stylesheet, with their text inside it:
     * a new completion does not make the table measure its rows again (the 64 MiB WRITE's
     * completion, in a storm of packets, was followed by that layout, docs/ladder.md).
     */
    @Test
    void completionsComingInKeepOneRowHeightWithTheirTextInside(FxRobot robot) {
        TableView<?> table = robot.lookup("#completionTable").queryTableView();
        for (int i = 0; i < 6; i++) {
            long wrId = i;
            WcStatus status = i == 3 ? WcStatus.REM_ACCESS_ERR : WcStatus.SUCCESS;
            robot.interact(() -> window.lab().completionLog().addAll(List.of(new CompletionRow(java.time.Instant.now(),
                    wrId % 2 == 0 ? "client" : "server",
                    new WorkCompletion(wrId, status, WcOpcode.RDMA_WRITE, 0, 65536, 0, 0x11, 0, 0), 12_345))));
        }
        waitFor("six completions", () -> table.getItems().size() == 6);
        robot.interact(() -> { });
        assertTrue(table.getFixedCellSize() > 0, "the stylesheet gives the rows their height");
        List<javafx.scene.control.TableRow<?>> rows = new java.util.ArrayList<>();
        for (javafx.scene.Node row : FxWait.onFx(() -> List.copyOf(table.lookupAll(".table-row-cell")))) {
            if (row instanceof javafx.scene.control.TableRow<?> tableRow && !tableRow.isEmpty()) {
                rows.add(tableRow);
            }
        }
        assertEquals(6, rows.size(), "rows shown");
        for (javafx.scene.control.TableRow<?> row : rows) {
            assertEquals(24, row.getHeight(), 0.01, "row " + row.getIndex() + ": modena's height for a 12px line");
            assertEquals(row.getIndex() == 3, row.getStyleClass().contains(CompletionsView.ROW_ERROR),
                    "row " + row.getIndex() + " drawn as an error");
            for (javafx.scene.Node text : row.lookupAll(".text")) {
                if (!(text instanceof Text line) || line.getText().isEmpty()) {
                    continue;
                }
                Bounds inRow = row.sceneToLocal(text.localToScene(text.getLayoutBounds()));
                assertTrue(inRow.getMinY() >= -0.01 && inRow.getMaxY() <= row.getHeight() + 0.01,
                        "row " + row.getIndex() + "'s text fits its height: " + inRow + " in " + row.getHeight());
            }
        }
    }

    @Test
    void clickThroughTheLoopbackLabToRtsOnBothSidesThenAnRdmaWrite(FxRobot robot) {
        ComboBox<?> devices = robot.lookup("#devicePicker").queryComboBox();
        waitFor("the devices", () -> devices.getValue() != null && !window.lab().setup().gids().isEmpty());
        robot.clickOn("#devicePicker");
        robot.clickOn(robot.lookup(".list-cell").match(node -> ((javafx.scene.control.ListCell<?>) node).getText() != null
                && ((javafx.scene.control.ListCell<?>) node).getText().startsWith("soft0")).queryAs(javafx.scene.Node.class));
        assertTrue(devices.getValue().toString().startsWith("soft0"));
        Label warning = robot.lookup("#gidWarning").queryAs(Label.class);
        assertTrue(warning.getText().contains("RTR fails with EINVAL"), warning.getText());
        robot.clickOn("#useRecommendedGid");
        waitFor("the recommended GID", () -> window.lab().setup().gidIndexProperty().get().equals("3")
                && side("server").nextIndexProperty().get() == 0 && !side("server").busyProperty().get());

        nextUntil(robot, "server", 7);
        nextUntil(robot, "client", 7);
        bothNext(robot);                         // exchange connection data
        nextUntil(robot, "server", 11);          // INIT, RTR, RTS
        nextUntil(robot, "client", 11);
        assertEquals(QpState.RTS, side("server").localStateProperty().get());
        assertEquals(QpState.RTS, side("client").localStateProperty().get());
        bothNext(robot);                         // sync 'Q'
        nextUntil(robot, "client", 15);          // write the buffer, post the RDMA WRITE, poll the CQ
        TableView<?> completions = robot.lookup("#completionTable").queryTableView();
        waitFor("the completion", () -> !completions.getItems().isEmpty());
        CompletionRow row = (CompletionRow) completions.getItems().get(0);
        assertEquals("IBV_WC_SUCCESS", row.completion().status().cName());
        assertEquals("IBV_WC_RDMA_WRITE", row.completion().opcode().cName());
        bothNext(robot);                         // sync 'W'
        nextUntil(robot, "server", 14);          // the server reads its buffer
        ListView<?> serverSteps = robot.lookup("#serverSteps").queryListView();
        robot.interact(() -> serverSteps.scrollTo(13));
        robot.clickOn(stepCell(robot, "server", 13));
        assertEquals(13, serverSteps.getSelectionModel().getSelectedIndex());
        Label result = robot.lookup("#stepResult").queryAs(Label.class);
        assertTrue(result.getText().contains("HelloWorld"), result.getText());
        Label noParameters = robot.lookup("#noParameters").queryAs(Label.class);
        assertTrue(noParameters.isVisible(), "a step without parameters says so");
    }

    @Test
    void gidMinusOneFailsRtrWithTheReasonAtTheFieldAndTheOneClickFixLetsTheFlowGoOn(FxRobot robot) {
        Label cause = SeedRuns.runUntilRtrFails(robot, window);
        assertTrue(cause.getText().startsWith("Caused by gid_idx of 'Query port and GID': EINVAL (22"), cause.getText());
        robot.clickOn("#showCauseButton");
        FxWait.waitForOnFx("the field", 30, () -> robot.lookup("#param-gid_idx").tryQuery().isPresent());
        javafx.scene.Node field = robot.lookup("#param-gid_idx").query();
        assertTrue(field.getStyleClass().contains(StepView.FIELD_ERROR), field.getStyleClass().toString());
        Label message = robot.lookup("#message-gid_idx").queryAs(Label.class);
        assertTrue(message.isVisible() && message.getText().contains("GRH"), message.getText());
        // The reason is said once, under the field; the box under the result names the failed step and has the fix.
        assertEquals("'Modify QP to RTR' failed because of gid_idx: " + StepViewModel.FIELD_SAYS_WHY, cause.getText());
        // At the window's default size the whole explanation is there to read, with the code and the fix.
        assertReadableWithTheCodeAndTheFix(robot, message, field);
        robot.clickOn(stepCell(robot, "client", 9));
        javafx.scene.control.Button fix = robot.lookup("#fixButton").queryButton();
        assertTrue(fix.isVisible() && fix.getText().contains("GID 3"), fix.getText());
        // The step pane lays the picked step out over a few pulses: click the button where it settles.
        FxWait.settle(() -> fix.localToScene(fix.getLayoutBounds()).toString(), 3, 120);
        robot.clickOn(fix);
        try {
            waitFor("the replay past RTR", () -> !side("client").busyProperty().get()
                    && !side("server").busyProperty().get() && side("client").nextIndexProperty().get() >= 10
                    && side("client").failedIndex() < 0);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; the client at step " + side("client").nextIndexProperty().get()
                    + ", failed at " + side("client").failedIndex() + "; the status line: "
                    + FxWait.onFx(() -> window.lab().statusProperty().get()), e);
        }
        assertEquals(QpState.RTR, side("client").localStateProperty().get());
        robot.clickOn("#runAllButton");
        waitFor("the end", () -> side("server").nextIndexProperty().get() == side("server").steps().size()
                && !side("server").busyProperty().get() && !side("client").busyProperty().get());
        assertEquals("\"HelloWorld\"", side("server").steps().get(side("server").steps().size() - 1)
                .summaryProperty().get());
    }

    /** Clicks the recommended GID, then Run both to end, and waits until both sides are done. */
    private void runTheSeedWithTheRecommendedGid(FxRobot robot) {
        waitFor("the devices", () -> !window.lab().setup().gids().isEmpty() && !window.lab().sides().isEmpty());
        robot.clickOn("#useRecommendedGid");
        waitFor("the recommended GID", () -> window.lab().setup().gidIndexProperty().get().equals("3")
                && !side("client").busyProperty().get() && !side("server").busyProperty().get());
        robot.clickOn("#runAllButton");
        waitFor("the end", () -> side("client").nextIndexProperty().get() == side("client").steps().size()
                && !side("server").busyProperty().get() && !side("client").busyProperty().get());
    }

    @Test
    void exportAsCInTheSetupBarWritesTheSelectedSidesProgramAndSaysHowToBuildIt(FxRobot robot) throws Exception {
        runTheSeedWithTheRecommendedGid(robot);
        javafx.scene.control.Button export = robot.lookup("#exportButton").queryButton();
        assertEquals("Export as C…", export.getText());
        assertFalse(export.isDisabled());
        java.nio.file.Path file = exportDir.resolve("client.c");
        // The save dialog's answer (a headless window shows none).
        ((SetupView) export.getProperties().get(SetupView.class)).exportTarget = owner -> file.toFile();
        // The status line says the latest thing that happened: the flow's end, not the GID change before it.
        Label statusLine = robot.lookup("#statusLabel").queryAs(Label.class);
        waitFor("the flow's end in the status line", () -> statusLine.getText().startsWith("the flow ran to its end ("));
        robot.clickOn(export);
        waitFor("the program", () -> java.nio.file.Files.exists(file));
        String program = java.nio.file.Files.readString(file);
        assertTrue(program.contains("ibv_post_send") && program.contains("HelloWorld"), program);
        assertEquals("exported the client's program to client.c; build it with gcc -o seed client.c -libverbs",
                robot.lookup("#statusLabel").queryAs(Label.class).getText());
    }

    @org.junit.jupiter.api.io.TempDir
    java.nio.file.Path exportDir;

    /** The counters' row (Wire › Counters) of {@code side}'s {@code counter}. */
    private static java.util.Optional<CountersViewModel.Row> counter(FxRobot robot, String side, String counter) {
        TableView<?> table = robot.lookup("#counterTable").queryTableView();
        return table.getItems().stream().map(CountersViewModel.Row.class::cast)
                .filter(row -> row.side().equals(side) && row.name().equals(counter)).findFirst();
    }

    @Test
    void thePacketsTabsCountersShowWhatAWriteCostSinceTheMark(FxRobot robot) {
        runTheSeedWithTheRecommendedGid(robot);
        robot.clickOn(robot.lookup(".inspector .tab .tab-label").match(node -> node instanceof Label label
                && "Wire".equals(label.getText())).queryAs(javafx.scene.Node.class));
        robot.clickOn(robot.lookup(".wire-tabs .tab .tab-label").match(node -> node instanceof Label label
                && "Counters".equals(label.getText())).queryAs(javafx.scene.Node.class));
        // The seed's WRITE: the client sent it and got its ACK, the server took it in and acknowledged it.
        waitFor("the seed's packets", () -> counter(robot, "client", "sent_pkts").map(row -> row.value() >= 1)
                .orElse(false) && counter(robot, "server", "rcvd_pkts").map(row -> row.value() >= 1).orElse(false));
        assertEquals(null, counter(robot, "client", "sent_pkts").orElseThrow().sinceMark(), "nothing marked yet");
        long sentBefore = counter(robot, "client", "sent_pkts").orElseThrow().value();

        robot.clickOn("#markButton");
        assertEquals(0L, counter(robot, "client", "sent_pkts").orElseThrow().sinceMark());
        // One more RDMA WRITE from the Traffic tab (the client, the form's defaults): one request packet.
        robot.clickOn(robot.lookup(".inspector .tab .tab-label").match(node -> node instanceof Label label
                && "Traffic".equals(label.getText())).queryAs(javafx.scene.Node.class));
        robot.clickOn("#postButton");
        TableView<?> completions = robot.lookup("#completionTable").queryTableView();
        waitFor("the second WRITE's completion", () -> completions.getItems().size() >= 2);
        robot.clickOn(robot.lookup(".inspector .tab .tab-label").match(node -> node instanceof Label label
                && "Wire".equals(label.getText())).queryAs(javafx.scene.Node.class));
        waitFor("the WRITE counted", () -> counter(robot, "client", "sent_pkts").map(CountersViewModel.Row::moved)
                .orElse(false) && counter(robot, "server", "sent_pkts").map(CountersViewModel.Row::moved).orElse(false));
        CountersViewModel.Row sent = counter(robot, "client", "sent_pkts").orElseThrow();
        assertEquals(sent.value() - sentBefore, sent.sinceMark());
        assertTrue(sent.sinceMark() >= 1, sent.toString());
        assertTrue(robot.lookup("#counterTable .counter-moved").tryQuery().isPresent(), "the rows that moved are lit");
        assertTrue(counter(robot, "client", "rcvd_rnr_err").isEmpty(), "counters at zero stay out of the list");
        robot.clickOn("#allCounters");
        assertEquals(0L, counter(robot, "client", "rcvd_rnr_err").orElseThrow().sinceMark(), "no RNR on a WRITE");
    }

    /**
     * {@code message} lies whole inside the part of the parameter sheet one sees, drawn without an
     * ellipsis, once the window has laid itself out (the layout takes a few pulses to settle, and
     * how many depends on the fonts installed).
     */
    private static void assertInTheSheetsView(FxRobot robot, Label message) {
        javafx.scene.Node viewport = robot.lookup("#parameterSheet").query().lookup(".scroll-pane > .viewport");
        waitFor(message.getId() + " in the sheet's view", () -> FxWait.onFx(() -> inside(viewport, message)));
        FxWait.onFx(() -> {
            assertTrue(message.isVisible() && inside(viewport, message), () -> message.getId() + " at "
                    + sceneBounds(message) + " lies in the sheet's view " + sceneBounds(viewport));
            String drawn = ((Text) message.lookup(".text")).getText();
            assertEquals(message.getText(), drawn, message.getId() + " is drawn whole");
            return true;
        });
    }

    /** C code lines the Step tab keeps in view under the parameters. */
    private static final int CODE_LINES = 3;

    /**
     * What a student needs to mend a refused field is in view at once, whatever the fonts: the field
     * and the line under it inside the part of the parameter sheet one sees, drawn whole; under them
     * the C code with {@link #CODE_LINES} lines of its font; and the result, the cause and its fix
     * button inside the Step tab.
     */
    private static void assertReadableWithTheCodeAndTheFix(FxRobot robot, Label message, javafx.scene.Node field) {
        assertInTheSheetsView(robot, message);
        javafx.scene.Node viewport = robot.lookup("#parameterSheet").query().lookup(".scroll-pane > .viewport");
        TextArea code = robot.lookup("#codeArea").queryAs(TextArea.class);
        javafx.scene.Node codeViewport = code.lookup(".scroll-pane > .viewport");
        javafx.scene.Node tab = robot.lookup(".step-view").query();
        java.util.List<javafx.scene.Node> inTab = java.util.List.of("#codeArea", "#stepResult", "#causeLabel",
                "#fixButton").stream().map(id -> (javafx.scene.Node) robot.lookup(id).query()).toList();
        double lineHeight = FxWait.onFx(() -> StepView.lineHeight(((Text) code.lookup(".text")).getFont()));
        waitFor("the Step tab laid out", () -> FxWait.onFx(() -> inside(viewport, field)
                && codeViewport.getLayoutBounds().getHeight() >= CODE_LINES * lineHeight
                && inTab.stream().allMatch(node -> node.isVisible() && inside(tab, node))));
        FxWait.onFx(() -> {
            assertTrue(inside(viewport, field), () -> field.getId() + " at " + sceneBounds(field)
                    + " lies in the sheet's view " + sceneBounds(viewport));
            assertTrue(codeViewport.getLayoutBounds().getHeight() >= CODE_LINES * lineHeight, () -> "the C code shows "
                    + codeViewport.getLayoutBounds().getHeight() / lineHeight + " lines");
            for (javafx.scene.Node node : inTab) {
                assertTrue(node.isVisible() && inside(tab, node), () -> node.getId() + " at " + sceneBounds(node)
                        + " lies in the Step tab " + sceneBounds(tab));
            }
            return true;
        });
    }

    private static Bounds sceneBounds(javafx.scene.Node node) {
        return node.localToScene(node.getLayoutBounds());
    }

    private static boolean inside(javafx.scene.Node outer, javafx.scene.Node inner) {
        return sceneBounds(outer).contains(sceneBounds(inner));
    }

    @Test
    void anIllegalTransitionFlashesItsArrowRedAndLeavesTheState(FxRobot robot) {
        waitFor("the steps", () -> !window.lab().sides().isEmpty() && !window.lab().setup().gids().isEmpty());
        SideViewModel client = side("client");
        robot.clickOn(stepCell(robot, "client", 5));
        robot.clickOn("#clientRunTo");
        waitFor("the QP", () -> client.nextIndexProperty().get() == 6 && !client.busyProperty().get());
        org.rdmalab.app.diagram.QpStateDiagram diagram = robot.lookup("#clientLocalQp")
                .queryAs(org.rdmalab.app.diagram.QpStateDiagram.class);
        assertEquals(QpState.RESET, diagram.getState());
        robot.clickOn(diagram.stateNode(QpState.RTS).orElseThrow());
        waitFor("the refusal", () -> !diagram.getRefusedTransitions().isEmpty());
        assertTrue(diagram.getRefusedTransitions().contains(
                new org.rdmalab.app.diagram.QpStateDiagram.Transition(QpState.RESET, QpState.RTS)));
        assertTrue(diagram.arrowNode(QpState.RESET, QpState.RTS).orElseThrow().getStyleClass().contains("refused"));
        assertTrue(diagram.getReason().contains("EINVAL"), diagram.getReason());
        assertEquals(QpState.RESET, diagram.getState());
        assertEquals(QpState.RESET, client.localStateProperty().get());
        robot.clickOn(diagram.stateNode(QpState.INIT).orElseThrow());
        waitFor("the refusal of a bare INIT", () -> diagram.getReason().contains("missing"));
        assertEquals(QpState.RESET, client.localStateProperty().get(), "RESET → INIT needs more than the state");
        assertEquals(QpState.RESET, diagram.getState());
    }

    @Test
    void clickingAStepShowsItsParametersWithTooltipsAndTheCCodeFollowsAnEdit(FxRobot robot) {
        waitFor("the steps", () -> !window.lab().sides().isEmpty());
        robot.clickOn(stepCell(robot, "client", 9));
        assertEquals("modify-rtr", window.lab().selectedStepProperty().get().step().id());
        TextArea code = robot.lookup("#codeArea").queryAs(TextArea.class);
        assertTrue(code.getText().contains("attr.path_mtu = IBV_MTU_256;"), code.getText());
        assertFalse(robot.lookup("#noParameters").queryAs(Label.class).isVisible(), "the step has parameters");
        javafx.scene.control.TextField minRnr = robot.lookup("#param-min_rnr_timer").queryAs(
                javafx.scene.control.TextField.class);
        assertTrue(minRnr.getTooltip().getText().startsWith("attr.min_rnr_timer"), minRnr.getTooltip().getText());
        robot.doubleClickOn(minRnr).eraseText(6).write("0x1c").type(javafx.scene.input.KeyCode.ENTER);
        assertTrue(code.getText().contains("attr.min_rnr_timer = 0x1c;"), code.getText());
        robot.doubleClickOn(minRnr).eraseText(6).write("99").type(javafx.scene.input.KeyCode.ENTER);
        Label message = robot.lookup("#message-min_rnr_timer").queryAs(Label.class);
        assertTrue(message.isVisible() && message.getText().contains("outside"), message.getText());
        assertInTheSheetsView(robot, message);
    }

    @Test
    void theKeysRunTheSelectedSide(FxRobot robot) {
        waitFor("the steps", () -> !window.lab().sides().isEmpty() && !window.lab().setup().gids().isEmpty());
        robot.clickOn(stepCell(robot, "client", 2));
        robot.type(javafx.scene.input.KeyCode.F10);
        waitFor("one step", () -> side("client").nextIndexProperty().get() == 1 && !side("client").busyProperty().get());
        robot.type(javafx.scene.input.KeyCode.F5);
        waitFor("to the selected step", () -> side("client").nextIndexProperty().get() == 3
                && !side("client").busyProperty().get());
        robot.press(javafx.scene.input.KeyCode.CONTROL).type(javafx.scene.input.KeyCode.R)
                .release(javafx.scene.input.KeyCode.CONTROL);
        waitFor("the reset", () -> side("client").nextIndexProperty().get() == 0 && !side("client").busyProperty().get());
        assertEquals(0, side("server").nextIndexProperty().get());
    }

    /**
     * The step's parameters cannot be edited while its side runs: the sheet is disabled then, and
     * enabled again after (each time the view reads the side's state, after a batch of events). On a hidden Step tab the sheet keeps its look until the tab is shown
     * (restyling it there made the window's next frame paint the whole window as a transfer
     * started), and shown, it has the side's state at once.
     */
    @Test
    void theParameterSheetIsDisabledWhileItsSideRunsAndAHiddenOneTakesThatStateWhenShown(FxRobot robot)
            throws Exception {
        waitFor("the steps", () -> !window.lab().sides().isEmpty() && !window.lab().setup().gids().isEmpty());
        SideViewModel client = side("client");
        robot.clickOn(stepCell(robot, "client", 0));
        assertEquals(client, window.lab().selectedSideProperty().get());
        javafx.scene.Node sheet = robot.lookup("#parameterSheet").query();
        assertFalse(FxWait.onFx(sheet::isDisable), "idle: editable");

        // Shown: the client held busy, the server's next step makes a batch of events, the view
        // refreshes (run from the model: a click in the server's column would select the server).
        java.util.concurrent.CountDownLatch release = holdBusy(robot, client);
        serverStep(robot, 1);
        assertTrue(FxWait.onFx(sheet::isDisable), "shown while its side runs: disabled");
        release.countDown();
        waitFor("the client idle", () -> !client.busyProperty().get());
        // The view reads the side's state after a batch of events; the held task made none.
        serverStep(robot, 2);
        assertFalse(FxWait.onFx(sheet::isDisable), "editable again");

        // Hidden: the same, with the Traffic tab shown.
        robot.clickOn(robot.lookup(".inspector .tab .tab-label").match(node -> node instanceof Label label
                && "Traffic".equals(label.getText())).queryAs(javafx.scene.Node.class));
        release = holdBusy(robot, client);
        serverStep(robot, 3);
        assertFalse(FxWait.onFx(sheet::isDisable), "hidden while its side runs: not restyled");
        robot.clickOn(robot.lookup(".inspector .tab .tab-label").match(node -> node instanceof Label label
                && "Step".equals(label.getText())).queryAs(javafx.scene.Node.class));
        assertTrue(FxWait.onFx(sheet::isDisable), "shown again while its side still runs: disabled");
        release.countDown();
        waitFor("the client idle", () -> !client.busyProperty().get());
        serverStep(robot, 4);
        assertFalse(FxWait.onFx(sheet::isDisable), "editable again");
    }

    /** Runs the server's next step from its model, leaving the selected side as it is, until step {@code next} is next. */
    private void serverStep(FxRobot robot, int next) {
        SideViewModel server = side("server");
        robot.interact(server::runNext);
        waitFor("the server's step", () -> !server.busyProperty().get() && server.nextIndexProperty().get() == next);
        assertEquals(-1, server.failedIndex());
        assertEquals(side("client"), window.lab().selectedSideProperty().get());
    }

    /** Keeps {@code side} busy on a task of its worker until the latch returned is counted down (30 s at most). */
    private static java.util.concurrent.CountDownLatch holdBusy(FxRobot robot, SideViewModel side) {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        robot.interact(() -> assertTrue(side.perform("held by the test", session -> {
            try {
                return release.await(30, java.util.concurrent.TimeUnit.SECONDS) ? "released" : "timed out";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
        }, said -> { })));
        waitFor("the side busy", () -> side.busyProperty().get());
        return release;
    }
}
