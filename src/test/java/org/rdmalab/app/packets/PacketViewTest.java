package org.rdmalab.app.packets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.control.TreeCell;
import javafx.scene.control.TreeView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.FxWait;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.SeedRuns;
import org.rdmalab.app.WindowRobot;
import org.rdmalab.app.lab.PacketRow;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.wire.Dissection;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/**
 * A packet opened in the window, as a student opens it: the seed's RDMA WRITE picked in the
 * Packets table shows its RETH with the client's remote address, rkey and 11 bytes; a field picked
 * in the tree lights its bytes, and a byte clicked picks its field.
 */
@ExtendWith(WindowRobot.class)
class PacketViewTest {

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

    private void runTheSeed(FxRobot robot) {
        FxWait.waitFor("the devices", 30, () -> !window.lab().setup().gids().isEmpty() && !window.lab().sides().isEmpty());
        robot.clickOn("#useRecommendedGid");
        FxWait.waitFor("the recommended GID", 30, () -> window.lab().setup().gidIndexProperty().get().equals("3")
                && !SeedRuns.side(window, "client").busyProperty().get()
                && !SeedRuns.side(window, "server").busyProperty().get());
        robot.clickOn("#runAllButton");
        FxWait.waitFor("the end", 30, () -> SeedRuns.side(window, "client").nextIndexProperty().get()
                == SeedRuns.side(window, "client").steps().size()
                && !SeedRuns.side(window, "server").busyProperty().get()
                && !SeedRuns.side(window, "client").busyProperty().get());
    }

    private static void clickTab(FxRobot robot, String text) {
        robot.clickOn(robot.lookup(".inspector .tab .tab-label").match(node -> node instanceof Label label
                && text.equals(label.getText())).queryAs(Node.class));
    }

    /** The tree's visible cell whose line starts with {@code start}. */
    private static Optional<TreeCell<?>> treeCell(FxRobot robot, String start) {
        Node tree = robot.lookup("#fieldTree").query();
        javafx.geometry.Bounds shown = tree.localToScreen(tree.getLayoutBounds());
        return robot.lookup("#fieldTree .tree-cell").match(node -> node instanceof TreeCell<?> cell && !cell.isEmpty()
                && cell.isVisible() && cell.getItem() != null && lineOf(cell).startsWith(start)
                && center(cell).getY() > shown.getMinY() && center(cell).getY() < shown.getMaxY()).tryQuery().map(node -> (TreeCell<?>) node);
    }

    private static javafx.geometry.Point2D center(Node node) {
        javafx.geometry.Bounds bounds = node.localToScreen(node.getLayoutBounds());
        return new javafx.geometry.Point2D(bounds.getCenterX(), bounds.getCenterY());
    }

    private static String lineOf(TreeCell<?> cell) {
        Object item = cell.getItem();
        return item instanceof Dissection.Field field ? field.name() + ": " + field.value()
                : ((Dissection.Header) item).name();
    }

    /** The hex labels lit now, by the offset each shows. */
    private static List<Integer> litBytes(FxRobot robot) {
        return robot.lookup(".packet-bytes-view .packet-byte." + PacketBytesView.SELECTED_CLASS).queryAll().stream()
                .filter(Node::isVisible).map(node -> (Integer) node.getUserData()).sorted().toList();
    }

    @Test
    void theSeedsWriteOpensWithTheClientsRemoteAddressRkeyAndLengthInItsReth(FxRobot robot) {
        runTheSeed(robot);
        clickTab(robot, "Wire");
        robot.clickOn(robot.lookup(".wire-tabs .tab .tab-label").match(node -> node instanceof Label label
                && "Packets".equals(label.getText())).queryAs(Node.class));
        TableView<PacketRow> table = robot.lookup("#packetTable").queryTableView();
        FxWait.waitFor("the client's WRITE in the table", 30, () -> table.getItems().stream().anyMatch(this::clientsWrite));
        PacketRow write = table.getItems().stream().filter(this::clientsWrite).findFirst().orElseThrow();
        int index = table.getItems().indexOf(write);
        robot.interact(() -> table.scrollTo(index));
        robot.clickOn(robot.lookup("#packetTable .table-row-cell").match(node -> node instanceof javafx.scene.control
                .TableRow<?> row && row.getIndex() == index).queryAs(Node.class));

        Label caption = robot.lookup(".packet-view #captionLabel").queryAs(Label.class);
        FxWait.waitFor("the packet opened", 10, () -> caption.getText().contains("RC_RDMA_WRITE_ONLY"));
        assertTrue(caption.getText().endsWith("ICRC ok"), caption.getText());

        ConnectionData remote = SeedRuns.side(window, "client").session().resources().remoteData().orElseThrow();
        @SuppressWarnings("unchecked")
        TreeView<Object> tree = (TreeView<Object>) robot.lookup("#fieldTree").queryAs(TreeView.class);
        FxWait.waitForOnFx("the RETH in the tree", 10, () -> tree.getRoot() != null && tree.getRoot().getChildren().stream()
                .anyMatch(item -> item.getValue() instanceof Dissection.Header header
                        && header.layer() == Dissection.Layer.RETH));
        robot.interact(() -> tree.scrollTo(tree.getRow(tree.getRoot().getChildren().stream()
                .filter(item -> item.getValue() instanceof Dissection.Header header
                        && header.layer() == Dissection.Layer.RETH).findFirst().orElseThrow())));
        FxWait.waitForOnFx("the RETH's fields", 10, () -> treeCell(robot, "DMA Length").isPresent());
        assertTrue(treeCell(robot, String.format("Virtual Address: 0x%016x", remote.addr())).isPresent(),
                "the RETH's va is the client's remote address");
        assertTrue(treeCell(robot, String.format("Remote Key: 0x%08x", remote.rkey())).isPresent(),
                "the RETH's rkey is the client's remote key");
        assertTrue(treeCell(robot, "DMA Length: 11").isPresent(), "the RETH's length is the WRITE's 11 bytes");

        // A field picked in the tree lights its bytes: the rkey is bytes 20..23 of the RETH, 48..51 of the packet.
        // Lines are wider than the tree: click the line's start, where the name is, not its middle.
        Node rkeyLine = treeCell(robot, "Remote Key").orElseThrow();
        javafx.geometry.Bounds treeShown = tree.localToScreen(tree.getLayoutBounds());
        robot.clickOn(new javafx.geometry.Point2D(treeShown.getMinX() + 80, center(rkeyLine).getY()));
        FxWait.waitFor("the rkey's bytes lit", 10, () -> litBytes(robot).equals(List.of(48, 49, 50, 51)));
        List<String> litText = robot.lookup(".packet-bytes-view .packet-byte." + PacketBytesView.SELECTED_CLASS)
                .queryAll().stream().sorted(java.util.Comparator.comparing(node -> (Integer) node.getUserData()))
                .map(node -> ((Label) node).getText()).toList();
        assertEquals(List.of(String.format("%08x", remote.rkey()).substring(0, 2),
                String.format("%08x", remote.rkey()).substring(2, 4), String.format("%08x", remote.rkey()).substring(4, 6),
                String.format("%08x", remote.rkey()).substring(6, 8)), litText);

        // A byte clicked picks its field: byte 39 is the BTH's PSN (20 IPv4 + 8 UDP + 11).
        PacketViewModel opened = (PacketViewModel) robot.lookup(".packet-view").query().getProperties()
                .get(PacketViewModel.class);
        javafx.scene.control.ListView<?> rows = robot.lookup(".packet-bytes-view .list-view").queryListView();
        robot.interact(() -> rows.scrollTo(0)); // the BTH is near the top; the rkey scrolled it away
        javafx.geometry.Bounds bytesShown = rows.localToScreen(rows.getLayoutBounds());
        java.util.function.Supplier<Optional<Node>> byte39 = () -> robot.lookup(".packet-bytes-view .packet-byte")
                .match(node -> Integer.valueOf(39).equals(node.getUserData()) && node.isVisible()
                        && bytesShown.contains(center(node))).tryQuery();
        // The list may still be scrolling (to the rkey, then to the top) and recycling its cells: click
        // where byte 39 is once its place, read where the layout lives, has stayed put for 3 pulses.
        FxWait.waitForOnFx("byte 39 on screen", 10, () -> byte39.get().isPresent());
        FxWait.settle(() -> byte39.get().map(node -> center(node).toString()).orElse("off screen"), 3, 120);
        javafx.geometry.Point2D psnAt = FxWait.onFx(() -> byte39.get().map(PacketViewTest::center).orElse(null));
        assertNotNull(psnAt, "byte 39 on screen once the byte list stopped moving");
        robot.clickOn(psnAt);
        FxWait.waitFor(() -> "the PSN picked by clicking byte 39 at " + psnAt + "; picked instead: "
                + FxWait.onFx(() -> opened.selectedProperty().get()), 10,
                () -> opened.selectedProperty().get() instanceof Dissection.Field field
                        && field.name().equals("Packet Sequence Number"));
        assertEquals("Packet Sequence Number", ((Dissection.Field) tree.getSelectionModel().getSelectedItem().getValue())
                .name(), "the tree follows the byte");
        assertEquals(List.of(37, 38, 39), litBytes(robot));
    }

    private boolean clientsWrite(PacketRow row) {
        return row.side().equals("client") && row.packet().direction() == PacketEvent.Direction.SENT
                && row.packet().opcode().equals("RC_RDMA_WRITE_ONLY");
    }
}
