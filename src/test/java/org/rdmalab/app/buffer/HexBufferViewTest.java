package org.rdmalab.app.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.ControlSnapshots;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The hex view: lazy reads of a 64 MiB source, highlights, ASCII, a failing source. */
@ExtendWith(ApplicationExtension.class)
class HexBufferViewTest {

    private static final long MIB_64 = 64L << 20;
    private static final byte[] HELLO = "HelloWorld".getBytes(StandardCharsets.US_ASCII);
    private static final long HELLO_AT = 0x20;

    /** 64 MiB computed from the offset (no array behind it), HelloWorld at 0x20; counts what is read. */
    static class CountingSource implements ByteSource {
        final AtomicLong bytesRead = new AtomicLong();
        final AtomicLong reads = new AtomicLong();

        @Override
        public long length() {
            return MIB_64;
        }

        @Override
        public byte[] read(long offset, int length) {
            if (offset < 0 || offset + length > MIB_64) {
                throw new IndexOutOfBoundsException(offset + "+" + length);
            }
            reads.incrementAndGet();
            bytesRead.addAndGet(length);
            byte[] bytes = new byte[length];
            for (int i = 0; i < length; i++) {
                bytes[i] = at(offset + i);
            }
            return bytes;
        }

        static byte at(long offset) {
            if (offset >= HELLO_AT && offset < HELLO_AT + HELLO.length) {
                return HELLO[(int) (offset - HELLO_AT)];
            }
            return offset < 0x40 ? 0 : (byte) (offset * 7 + (offset >>> 16));
        }
    }

    private HexBufferView view;
    private final CountingSource source = new CountingSource();

    private Stage stage;

    @Start
    void start(Stage primary) {
        // An own window: resizing it here must not change the primary stage other test classes reuse.
        stage = new Stage();
        view = new HexBufferView();
        view.setCaption("remote buffer · RDMA READ at 12:03:04.512");
        view.setBaseAddress(0x7f3a2c001000L);
        view.setSource(source);
        StackPane root = new StackPane(view);
        root.setStyle("-fx-padding: 8;");
        Scene scene = new Scene(root, 600, 300);
        scene.getStylesheets().add(getClass().getResource("/styles/rdma-lab.css").toExternalForm());
        stage.setScene(scene);
        stage.show();
    }

    @AfterEach
    void closeWindow(FxRobot robot) {
        robot.interact(stage::close);
    }

    private List<Node> visibleRows(FxRobot robot) {
        ListView<?> list = robot.from(view).lookup(".list-view").queryAs(ListView.class);
        Bounds viewport = list.localToScene(list.getLayoutBounds());
        return robot.from(list).lookup("." + HexBufferView.ROW_CLASS).queryAll().stream()
                .filter(Node::isVisible)
                .filter(row -> row.getParent() != null && row.getParent().isVisible())
                .filter(row -> viewport.intersects(row.localToScene(row.getLayoutBounds())))
                .collect(Collectors.toList());
    }

    private static String text(Node row, String styleClass, FxRobot robot) {
        return robot.from(row).lookup("." + styleClass).queryAllAs(Label.class).stream()
                .map(Label::getText).collect(Collectors.joining());
    }

    private static String address(Node row, FxRobot robot) {
        return robot.from(row).lookup("." + HexBufferView.ADDRESS_CLASS).queryAs(Label.class).getText();
    }

    private Optional<Node> rowAt(FxRobot robot, String address) {
        return visibleRows(robot).stream().filter(row -> address.equals(address(row, robot))).findFirst();
    }

    @Test
    void rendersTheFirstRowsWithAddressesHexAndAscii(FxRobot robot) {
        Node row = rowAt(robot, "7f3a2c001020").orElseThrow();
        assertTrue(text(row, HexBufferView.ASCII_CLASS, robot).startsWith("HelloWorld......"),
                text(row, HexBufferView.ASCII_CLASS, robot));
        assertEquals("48656c6c6f576f726c64" + "000000000000", text(row, HexBufferView.BYTE_CLASS, robot));
        assertEquals("7f3a2c001020: 48 65 6c 6c 6f 57 6f 72 6c 64 00 00 00 00 00 00 | HelloWorld......",
                row.getAccessibleText(), "a screen reader reads the whole row");
        assertTrue(rowAt(robot, "7f3a2c001000").isPresent());
        assertTrue(visibleRows(robot).size() >= 8, "a 300 px view shows at least 8 rows");
        assertTrue(source.bytesRead.get() < 4096, "first layout read " + source.bytesRead.get() + " bytes");
    }

    @Test
    void scrollsToTheEndOf64MibReadingOnlyTheVisibleRows(FxRobot robot) {
        robot.interact(() -> {
            source.bytesRead.set(0);
            source.reads.set(0);
            view.scrollToOffset(MIB_64 - 1);
        });
        WaitForAsyncUtils.waitForFxEvents();
        Node last = rowAt(robot, Long.toHexString(0x7f3a2c001000L + MIB_64 - 16)).orElseThrow(
                () -> new AssertionError("the last row is not visible"));
        StringBuilder expected = new StringBuilder();
        for (long offset = MIB_64 - 16; offset < MIB_64; offset++) {
            expected.append(String.format("%02x", CountingSource.at(offset) & 0xff));
        }
        assertEquals(expected.toString(), text(last, HexBufferView.BYTE_CLASS, robot));
        long read = source.bytesRead.get();
        assertTrue(read > 0 && read <= 4096, "scrolling to the end read " + read + " bytes in "
                + source.reads.get() + " reads");

        robot.interact(() -> {
            source.bytesRead.set(0);
            view.scrollToOffset(32L << 20);
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(rowAt(robot, Long.toHexString(0x7f3a2c001000L + (32L << 20))).isPresent());
        assertTrue(source.bytesRead.get() <= 4096, "a jump to the middle read " + source.bytesRead.get());
    }

    @Test
    void highlightedBytesCarryTheChangedStyleInHexAndAscii(FxRobot robot) {
        robot.interact(() -> view.highlight(HELLO_AT, HELLO.length));
        Node row = rowAt(robot, "7f3a2c001020").orElseThrow();
        List<Label> hex = robot.from(row).lookup("." + HexBufferView.BYTE_CLASS).queryAllAs(Label.class)
                .stream().collect(Collectors.toList());
        List<Label> ascii = robot.from(row).lookup("." + HexBufferView.ASCII_CLASS).queryAllAs(Label.class)
                .stream().collect(Collectors.toList());
        for (int i = 0; i < 16; i++) {
            boolean changed = i < HELLO.length;
            assertEquals(changed, hex.get(i).getStyleClass().contains(HexBufferView.CHANGED_CLASS), "hex " + i);
            assertEquals(changed, ascii.get(i).getStyleClass().contains(HexBufferView.CHANGED_CLASS), "ascii " + i);
        }
        assertEquals(javafx.scene.paint.Color.web("#fde68a"),
                hex.get(0).getBackground().getFills().get(0).getFill(), "drawn with -rl-changed");
        Node other = rowAt(robot, "7f3a2c001000").orElseThrow();
        assertFalse(robot.from(other).lookup("." + HexBufferView.CHANGED_CLASS).tryQuery().isPresent());

        robot.interact(view::clearHighlights);
        assertFalse(robot.from(rowAt(robot, "7f3a2c001020").orElseThrow())
                .lookup("." + HexBufferView.CHANGED_CLASS).tryQuery().isPresent());
    }

    @Test
    void aSourceThatThrowsShowsARowSayingSo(FxRobot robot) {
        robot.interact(() -> view.setSource(new ByteSource() {
            @Override
            public long length() {
                return 64;
            }

            @Override
            public byte[] read(long offset, int length) {
                if (offset >= 32) {
                    throw new IllegalStateException("the MR was deregistered");
                }
                return new byte[length];
            }
        }));
        Node failed = rowAt(robot, "7f3a2c001020").orElseThrow();
        Label error = robot.from(failed).lookup("." + HexBufferView.ERROR_CLASS).queryAs(Label.class);
        assertTrue(error.isVisible());
        assertEquals("read failed: the MR was deregistered", error.getText());
        Node fine = rowAt(robot, "7f3a2c001000").orElseThrow();
        assertFalse(robot.from(fine).lookup("." + HexBufferView.ERROR_CLASS).queryAs(Label.class).isVisible());
        assertEquals(4, visibleRows(robot).size(), "64 bytes are 4 rows");
    }

    /**
     * A new snapshot of the same buffer (same length) shows its new bytes where the reader is: the
     * view stays scrolled where it was, and it reads only what it shows.
     */
    @Test
    void aNewSnapshotOfTheSameLengthShowsItsBytesWhereTheReaderIs(FxRobot robot) {
        robot.interact(() -> view.scrollToOffset(32L << 20));
        WaitForAsyncUtils.waitForFxEvents();
        String address = Long.toHexString(0x7f3a2c001000L + (32L << 20));
        assertTrue(rowAt(robot, address).isPresent());
        CountingSource changed = new CountingSource() {
            @Override
            public byte[] read(long offset, int length) {
                byte[] bytes = super.read(offset, length);
                java.util.Arrays.fill(bytes, (byte) 'A');
                return bytes;
            }
        };
        robot.interact(() -> view.setSource(changed));
        WaitForAsyncUtils.waitForFxEvents();
        Node row = rowAt(robot, address).orElseThrow(() -> new AssertionError("the view went back to the top"));
        assertEquals("AAAAAAAAAAAAAAAA", text(row, HexBufferView.ASCII_CLASS, robot), "the new snapshot's bytes");
        assertTrue(changed.bytesRead.get() > 0 && changed.bytesRead.get() <= 4096,
                "read only the rows shown: " + changed.bytesRead.get());
        // A snapshot of another length is another buffer: from its top.
        robot.interact(() -> view.setSource(ByteSource.of(new byte[64])));
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(rowAt(robot, "7f3a2c001000").isPresent(), "a buffer of another length shows its first row");
    }

    @Test
    void refreshRereadsTheVisibleRows(FxRobot robot) {
        byte[] bytes = new byte[40];
        robot.interact(() -> {
            view.setBaseAddress(0);
            view.setSource(ByteSource.of(bytes));
        });
        System.arraycopy(HELLO, 0, bytes, 16, HELLO.length);
        assertEquals("................", text(rowAt(robot, "00000010").orElseThrow(), HexBufferView.ASCII_CLASS, robot));
        robot.interact(view::refresh);
        assertEquals("HelloWorld......", text(rowAt(robot, "00000010").orElseThrow(), HexBufferView.ASCII_CLASS, robot));
        assertEquals("        ", text(rowAt(robot, "00000020").orElseThrow(), HexBufferView.ASCII_CLASS, robot)
                .substring(8), "a short last row leaves the rest blank");
    }

    @Test
    void snapshotsForTheEye(FxRobot robot) {
        robot.interact(() -> {
            view.highlight(HELLO_AT, HELLO.length);
            ControlSnapshots.write(view, "hex-view-start");
        });
        robot.interact(() -> view.scrollToOffset(MIB_64 - 1));
        robot.interact(() -> ControlSnapshots.write(view, "hex-view-end"));
        assertTrue(ControlSnapshots.FOLDER.resolve("hex-view-end.png").toFile().length() > 0);
    }
}
