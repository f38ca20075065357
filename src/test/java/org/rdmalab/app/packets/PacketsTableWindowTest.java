package org.rdmalab.app.packets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javafx.scene.Node;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.FxWait;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.WindowRobot;
import org.rdmalab.app.WindowScenario;
import org.rdmalab.app.lab.PacketRow;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/**
 * Wire › Packets under a stream of packets, and nothing hidden changing behind it. The table's rows
 * have one height, set by the stylesheet, so the table does not measure rows on a hidden row of its
 * own: that row was given each new row to measure and styled again each time packets came. And the
 * Ladder tab behind it is not drawn again until it is chosen. In a frame where nothing else changed,
 * either alone made JavaFX's renderer find no dirty region and paint the whole window
 * (docs/ladder.md).
 */
@ExtendWith(WindowRobot.class)
class PacketsTableWindowTest {

    private MainWindow window;

    @Start
    void start(Stage stage) throws Exception {
        window = MainWindow.create(Backends.installed(), DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort()));
        stage.setScene(window.scene());
        stage.show();
    }

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(window::close);
    }

    @Test
    void rowsStreamingInAreNotMeasuredOnAHiddenRowAndKeepOneHeight(FxRobot robot) {
        robot.interact(() -> WindowScenario.showView("packets"));
        FxWait.waitFor("the Packets table", 30, () -> robot.lookup("#packetTable").tryQuery().isPresent());
        TableView<?> table = robot.lookup("#packetTable").queryAs(TableView.class);
        for (int batch = 0; batch < 20; batch++) {
            int first = batch * 25;
            robot.interact(() -> window.lab().packetLog().addAll(packets(first, 25)));
        }
        FxWait.waitFor("500 rows", 30, () -> table.getItems().size() == 500);
        robot.interact(() -> { });

        List<TableRow<?>> rows = new ArrayList<>();
        for (Node row : FxWait.onFx(() -> List.copyOf(table.lookupAll(".table-row-cell")))) {
            if (row instanceof TableRow<?> tableRow) {
                rows.add(tableRow);
            }
        }
        List<TableRow<?>> measuring = rows.stream().filter(row -> !row.getParent().getStyleClass().contains("sheet")).toList();
        assertEquals(List.of(), measuring, "a row kept out of the table's sheet, to measure the others on");
        List<TableRow<?>> filled = rows.stream().filter(row -> !row.isEmpty()).toList();
        assertTrue(filled.size() >= 2, filled.size() + " rows shown");
        assertTrue(table.getFixedCellSize() > 0, "the stylesheet gives the rows their height");
        for (TableRow<?> row : filled) {
            assertEquals(table.getFixedCellSize(), row.getHeight(), 0.01, "row " + row.getIndex());
            for (Node text : row.lookupAll(".text")) {
                if (!(text instanceof javafx.scene.text.Text line) || line.getText().isEmpty()) {
                    continue;
                }
                javafx.geometry.Bounds inRow = row.sceneToLocal(text.localToScene(text.getLayoutBounds()));
                assertTrue(inRow.getMinY() >= -0.01 && inRow.getMaxY() <= row.getHeight() + 0.01,
                        "row " + row.getIndex() + "'s text fits its height: " + inRow + " in " + row.getHeight());
            }
        }
    }

    @Test
    void theLadderBehindThePacketsIsNotDrawnUntilItsTabIsChosen(FxRobot robot) {
        robot.interact(() -> WindowScenario.showView("packets"));
        assertEquals(false, FxWait.onFx(() -> window.ladder().onScreenProperty().get()), "the Packets tab shown");
        robot.interact(() -> WindowScenario.showView("ladder"));
        assertEquals(true, FxWait.onFx(() -> window.ladder().onScreenProperty().get()), "the Ladder tab shown");
        robot.interact(() -> WindowScenario.showView("counters"));
        assertEquals(false, FxWait.onFx(() -> window.ladder().onScreenProperty().get()), "the Counters tab shown");
    }

    /** The node and its parents up to the table are all visible. */
    private static boolean shown(Node node, Node table) {
        for (Node at = node; at != null && at != table; at = at.getParent()) {
            if (!at.isVisible()) {
                return false;
            }
        }
        return true;
    }

    private static List<PacketRow> packets(int first, int count) {
        List<PacketRow> rows = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            rows.add(new PacketRow(Instant.ofEpochSecond(1_700_000_000L, i * 1_000L), i % 2 == 0 ? "client" : "server",
                    new PacketEvent(i * 1_000L, i % 2 == 0 ? PacketEvent.Direction.SENT : PacketEvent.Direction.RECEIVED,
                            "10.0.0.1", "10.0.0.2", "RC_RDMA_WRITE_MIDDLE", 0x11, i, false, 1024, "")));
        }
        return rows;
    }
}
