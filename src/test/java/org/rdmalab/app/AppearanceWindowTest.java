package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import javafx.scene.control.Label;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.app.settings.LabSettings;
import org.rdmalab.app.settings.SettingsStore;
import org.rdmalab.app.settings.Theme;
import org.rdmalab.control.ControlProtocol;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.lab.Role;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/**
 * The settings menu, its keys and the keyboard shortcuts' list: the theme and Projector switched at
 * run time, what the window remembers and Reset settings (headless; the store lives in memory).
 */
@ExtendWith(WindowRobot.class)
class AppearanceWindowTest {

    private Stage stage;
    private MainWindow window;
    private SettingsStore store;

    @Start
    void start(Stage primary) throws Exception {
        stage = primary;
        open(LabSettings.defaults());
        stage.show();
    }

    /** Puts a new window showing {@code settings} on the stage (JavaFX thread). */
    private void open(LabSettings settings) throws Exception {
        if (window != null) {
            window.close();
        }
        store = SettingsStore.inMemory();
        window = MainWindow.create(Backends.installed(), DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort()),
                settings, store);
        stage.setScene(window.scene());
        stage.setWidth(window.scene().getWidth());
        stage.setHeight(window.scene().getHeight());
    }

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(window::close);
    }

    private static void waitFor(String what, BooleanSupplier condition) {
        FxWait.waitFor(what, 30, condition);
    }

    /** The status bar's background colour as CSS computed it. */
    private Color statusBar(FxRobot robot) {
        Region bar = robot.lookup(".status-bar").queryAs(Region.class);
        return FxWait.onFx(() -> (Color) bar.getBackground().getFills().get(0).getFill());
    }

    private Color textOf(FxRobot robot, String query) {
        Label label = robot.lookup(query).queryAs(Label.class);
        return FxWait.onFx(() -> (Color) label.getTextFill());
    }

    /** The settings menu's item that reads {@code text} (the menu is open). */
    private static javafx.scene.Node menuItem(FxRobot robot, String text) {
        return robot.lookup(".menu-item").match(node -> node.lookup(".label") instanceof Label label
                && text.equals(label.getText())).queryAs(javafx.scene.Node.class);
    }

    @Test
    void theDarkThemeRecoloursTheWindowAtOnceFromTheMenuAndItsKeysTakeItBack(FxRobot robot) {
        Color lightBar = statusBar(robot);
        Color lightTitle = textOf(robot, ".panel-title");
        assertTrue(lightBar.getBrightness() > 0.8, "light: " + lightBar);
        robot.clickOn("#settingsMenu");
        robot.clickOn(menuItem(robot, "Dark theme"));
        waitFor("the dark colours", () -> statusBar(robot).getBrightness() < 0.3);
        assertEquals(Theme.DARK, window.appearance().themeProperty().get());
        // Text turns light on the dark panels: the tokens changed, not one node.
        Color darkTitle = textOf(robot, ".panel-title");
        assertTrue(darkTitle.getBrightness() > 0.8 && lightTitle.getBrightness() < 0.3, lightTitle + " → " + darkTitle);
        // What opens over the window is dark too: a list's popup and the menu.
        robot.clickOn("#devicePicker");
        FxWait.waitForOnFx("the device list", 30, () -> robot.lookup(".list-view").match(node -> node.getScene() != window.scene())
                .tryQuery().isPresent());
        Region list = robot.lookup(".list-view").match(node -> node.getScene() != window.scene()).queryAs(Region.class);
        Color listFill = FxWait.onFx(() -> (Color) list.getBackground().getFills().get(
                list.getBackground().getFills().size() - 1).getFill());
        assertTrue(listFill.getBrightness() < 0.35, "the device list is dark: " + listFill);
        robot.type(KeyCode.ESCAPE);
        robot.clickOn("#settingsMenu");
        Label item = (Label) menuItem(robot, "Dark theme").lookup(".label");
        Color itemText = FxWait.onFx(() -> (Color) item.getTextFill());
        assertTrue(itemText.getBrightness() > 0.7, "the menu's words are light on its dark background: " + itemText);
        robot.type(KeyCode.ESCAPE);
        robot.press(KeyCode.CONTROL, KeyCode.SHIFT).type(KeyCode.D).release(KeyCode.SHIFT, KeyCode.CONTROL);
        waitFor("the light colours again", () -> statusBar(robot).equals(lightBar));
        assertEquals(Theme.LIGHT, window.appearance().themeProperty().get());
        assertEquals(lightTitle, textOf(robot, ".panel-title"));
    }

    @Test
    void projectorDrawsEveryThingOneAndAHalfTimesLargerWithTheSameLayoutAndItsKeysTurnItOff(FxRobot robot) {
        Label status = robot.lookup("#statusLabel").queryAs(Label.class);
        double height = FxWait.onFx(() -> status.localToScene(status.getLayoutBounds()).getHeight());
        robot.press(KeyCode.CONTROL, KeyCode.SHIFT).type(KeyCode.P).release(KeyCode.SHIFT, KeyCode.CONTROL);
        waitFor("projector", () -> window.appearance().scaleProperty().get() == 1.5);
        robot.interact(() -> {
            stage.setWidth(1440);
            stage.setHeight(900);
        });
        FxWait.onFx(() -> {
            double scaled = status.localToScene(status.getLayoutBounds()).getHeight();
            assertEquals(height * 1.5, scaled, 0.01, "the status line is drawn 1.5 times taller");
            Region content = (Region) window.scene().getRoot().getChildrenUnmodifiable().get(0);
            assertEquals(window.scene().getWidth() / 1.5, content.getWidth(), 0.5, "laid out at the window's width / 1.5");
            assertEquals(window.scene().getHeight() / 1.5, content.getHeight(), 0.5);
            return true;
        });
        robot.clickOn("#settingsMenu");
        robot.clickOn(menuItem(robot, "Projector (1.5×)"));
        waitFor("at a desk", () -> window.appearance().scaleProperty().get() == 1.0);
        assertEquals(height, FxWait.onFx(() -> status.localToScene(status.getLayoutBounds()).getHeight()), 0.01);
    }

    /** How tall {@code node} is drawn on the screen, and how wide the popup window holding it is. */
    private static double[] drawnHeightAndPopupWidth(javafx.scene.Node node) {
        return FxWait.onFx(() -> new double[] {node.localToScreen(node.getLayoutBounds()).getHeight(),
                node.getScene().getWindow().getWidth()});
    }

    /** The settings menu's "Dark theme" item, the menu open: its height on screen and the menu's width. */
    private static double[] settingsMenuSize(FxRobot robot) {
        robot.clickOn("#settingsMenu");
        double[] size = drawnHeightAndPopupWidth(menuItem(robot, "Dark theme").lookup(".label"));
        robot.type(KeyCode.ESCAPE);
        return size;
    }

    /** The device picker's list, open: its first cell's height on screen and the list's width. */
    private static double[] deviceListSize(FxRobot robot) {
        robot.clickOn("#devicePicker");
        FxWait.waitForOnFx("the device list", 30, () -> robot.lookup(".list-cell").match(node -> node.getScene() != null
                && node.getScene().getWindow() instanceof javafx.stage.PopupWindow).tryQuery().isPresent());
        double[] size = drawnHeightAndPopupWidth(robot.lookup(".list-cell")
                .match(node -> node.getScene().getWindow() instanceof javafx.stage.PopupWindow).query());
        robot.type(KeyCode.ESCAPE);
        return size;
    }

    @Test
    void projectorDrawsTheMenusAndListsThatOpenOverTheWindowAsMuchLargerAndADeskBringsThemBack(FxRobot robot) {
        robot.interact(() -> {
            stage.setWidth(1440);
            stage.setHeight(900);
        });
        double[] menu = settingsMenuSize(robot);
        double[] list = deviceListSize(robot);
        robot.interact(() -> window.appearance().scale(1.5));
        double[] bigMenu = settingsMenuSize(robot);
        double[] bigList = deviceListSize(robot);
        assertEquals(menu[0] * 1.5, bigMenu[0], 0.5, "a menu item's words are drawn 1.5 times taller");
        assertEquals(menu[1] * 1.5, bigMenu[1], 2, "and the menu is 1.5 times wider, holding them");
        assertEquals(list[0] * 1.5, bigList[0], 0.5, "a drop-down list's row is 1.5 times taller");
        assertEquals(list[1] * 1.5, bigList[1], 2, "and the list 1.5 times wider");
        robot.interact(() -> window.appearance().scale(1.0));
        double[] back = settingsMenuSize(robot);
        assertEquals(menu[0], back[0], 0.01, "at a desk again, the menu is its own size");
        assertEquals(menu[1], back[1], 0.5);
    }

    @Test
    void f1ListsEveryKeyAndEscOrF1ClosesIt(FxRobot robot) {
        javafx.scene.Node help = robot.lookup("#helpOverlay").query();
        assertFalse(help.isVisible());
        robot.type(KeyCode.F1);
        waitFor("the list", help::isVisible);
        List<String> actions = robot.lookup(".help-action").queryAll().stream().map(node -> ((Label) node).getText())
                .toList();
        List<String> keys = robot.lookup(".help-key").queryAll().stream().map(node -> ((Label) node).getText()).toList();
        assertEquals(List.of("Next step (the selected side)", "Run to the selected step (or to the end)",
                "Run both to end", "Reset every side", "Select the other side", "Dark theme on or off",
                "Projector on or off", "This list"), actions);
        assertEquals(8, keys.size());
        assertEquals(List.of("F10", "F5", "F8"), keys.subList(0, 3));
        assertTrue(keys.get(3).endsWith("R") && keys.get(5).endsWith("D") && keys.get(6).endsWith("P"), keys::toString);
        robot.type(KeyCode.ESCAPE);
        waitFor("Esc closes it", () -> !help.isVisible());
        robot.type(KeyCode.F1);
        waitFor("open again", help::isVisible);
        robot.type(KeyCode.F1);
        waitFor("F1 closes it", () -> !help.isVisible());
        robot.clickOn("#settingsMenu");
        robot.clickOn(menuItem(robot, "Keyboard shortcuts"));
        waitFor("the menu opens it", help::isVisible);
        robot.clickOn(help);
        waitFor("a click closes it", () -> !help.isVisible());
    }

    @Test
    void f6HandsTheKeysToTheOtherSideAndF10RunsItsNextStep(FxRobot robot) {
        waitFor("the steps", () -> window.lab().sides().size() == 2 && !window.lab().setup().gids().isEmpty());
        SideViewModel server = window.lab().sides().get(0);
        SideViewModel client = window.lab().sides().get(1);
        robot.interact(() -> window.lab().selectedSideProperty().set(server));
        robot.type(KeyCode.F6);
        assertEquals(client, window.lab().selectedSideProperty().get());
        robot.type(KeyCode.F10);
        waitFor("the client's first step", () -> client.nextIndexProperty().get() == 1 && !client.busyProperty().get());
        assertEquals(0, server.nextIndexProperty().get(), "the server did not move");
        robot.type(KeyCode.F6);
        assertEquals(server, window.lab().selectedSideProperty().get());
    }

    @Test
    void theWindowOpensWithTheRememberedSetupThemeAndScaleAndResetSettingsForgetsThem(FxRobot robot) throws Exception {
        LabSettings remembered = LabSettings.defaults().withSetup(Optional.of("soft0"), "3", LabSetup.Mode.LOOPBACK,
                Role.SERVER, "127.0.0.1", "127.0.0.1", 12026, ControlProtocol.SEED).withTheme(Theme.DARK).withScale(1.25);
        robot.interact(() -> {
            try {
                open(remembered);
                remembered.write(store);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        waitFor("the devices", () -> !window.lab().setup().gids().isEmpty() && window.lab().sides().size() == 2);
        assertEquals("3", window.lab().currentProperty().get().gidIndex(), "the lab runs with the remembered GID");
        assertEquals(12026, window.lab().setup().tcpPortProperty().get(), "the setup bar keeps the remembered port");
        assertEquals(ControlProtocol.SEED, window.lab().setup().protocolProperty().get());
        assertEquals("3", String.valueOf(robot.lookup("#gidPicker").queryComboBox().getValue()));
        assertTrue(statusBar(robot).getBrightness() < 0.3, "dark");
        assertEquals(1.25, window.appearance().scaleProperty().get());

        robot.clickOn("#settingsMenu");
        robot.clickOn(menuItem(robot, "Reset settings"));
        waitFor("the first start's look", () -> statusBar(robot).getBrightness() > 0.8
                && window.appearance().scaleProperty().get() == 1.0);
        assertEquals(LabSettings.defaults(), LabSettings.read(store), "the store forgot everything");
        waitFor("the seed's setup", () -> "-1".equals(window.lab().currentProperty().get().gidIndex())
                && window.lab().sides().size() == 2);
        assertEquals("-1", window.lab().setup().gidIndexProperty().get());
        assertEquals(12025, window.lab().setup().tcpPortProperty().get());
        assertEquals(ControlProtocol.LAB, window.lab().setup().protocolProperty().get());
    }

    @Test
    void closingWritesWhatTheUserChoseAndWhereTheWindowWas(FxRobot robot) {
        robot.press(KeyCode.CONTROL, KeyCode.SHIFT).type(KeyCode.D).release(KeyCode.SHIFT, KeyCode.CONTROL);
        robot.clickOn("#settingsMenu");
        robot.clickOn(menuItem(robot, "Language"));
        robot.clickOn(menuItem(robot, "Chinese (中文)"));
        assertEquals("窗口下次启动时使用中文。", robot.lookup("#statusLabel").queryAs(Label.class).getText(),
                "said in the language chosen");
        robot.interact(() -> {
            window.lab().setup().gidIndexProperty().set("auto");
            window.follow(stage);
            stage.setX(40);
            stage.setY(30);
            window.save(stage);
        });
        LabSettings read = LabSettings.read(store);
        assertEquals(Theme.DARK, read.theme());
        assertEquals(Optional.of("zh_CN"), read.language());
        assertEquals("auto", read.gidIndex());
        assertEquals(Optional.of("soft0"), read.device());
        LabSettings.Place place = read.place().orElseThrow();
        assertEquals(40, place.x());
        assertEquals(30, place.y());
        assertEquals(Math.round(stage.getWidth()), place.width());
        assertNotEquals(LabSettings.defaults(), read);
    }

    /**
     * Each split pane paints one background fill inside a 1px border of the box's colour, not
     * modena's two fills (the border's colour, then the background 1px in): in software a region of
     * more than one fill is painted from a cached image stretched over it, and three split panes
     * lie behind the ladder's chart, redrawn ten times a second while packets stream
     * (docs/ladder.md). The content keeps its place: 1px in for an outer split pane, none for one
     * inside another, whose border would never show.
     */
    @Test
    void splitPanesPaintOneFillInsideAOnePixelBorderInBothThemes(FxRobot robot) {
        for (boolean dark : new boolean[] {false, true}) {
            if (dark) {
                robot.press(KeyCode.CONTROL, KeyCode.SHIFT).type(KeyCode.D).release(KeyCode.SHIFT, KeyCode.CONTROL);
                waitFor("the dark colours", () -> statusBar(robot).getBrightness() < 0.3);
            }
            List<javafx.scene.control.SplitPane> panes = List.copyOf(robot.lookup(".split-pane")
                    .queryAllAs(javafx.scene.control.SplitPane.class));
            assertTrue(panes.size() >= 2, "the window's split panes: " + panes.size());
            for (javafx.scene.control.SplitPane pane : panes) {
                String name = pane.getId() + (dark ? " (dark)" : "");
                boolean nested = FxWait.onFx(() -> pane.getParent() != null && pane.getParent().getParent()
                        instanceof javafx.scene.control.SplitPane);
                List<javafx.scene.layout.BackgroundFill> fills = FxWait.onFx(() -> pane.getBackground().getFills());
                assertEquals(1, fills.size(), name + ": " + fills);
                Color fill = (Color) fills.get(0).getFill();
                assertEquals(dark, fill.getBrightness() < 0.5, name + ": " + fill);
                javafx.geometry.Insets insets = FxWait.onFx(pane::getInsets);
                assertEquals(nested ? javafx.geometry.Insets.EMPTY : new javafx.geometry.Insets(1), insets, name);
                javafx.scene.layout.Border border = FxWait.onFx(pane::getBorder);
                if (nested) {
                    assertTrue(border == null || border.getStrokes().isEmpty(), name + ": " + border);
                } else {
                    assertEquals(1, border.getStrokes().size(), name);
                    assertEquals(1, border.getStrokes().get(0).getWidths().getTop(), name);
                    assertNotEquals(fill, border.getStrokes().get(0).getTopStroke(), name + ": the edge shows");
                }
            }
        }
    }
}
