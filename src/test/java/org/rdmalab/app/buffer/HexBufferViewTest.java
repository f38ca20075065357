package org.rdmalab.app.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javafx.geometry.Bounds;
import javafx.scene.AccessibleAttribute;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.canvas.Canvas;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.ControlSnapshots;
import org.rdmalab.app.WindowRobot;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The hex view: lazy reads of a 64 MiB source, highlights, ASCII, a failing source. */
@ExtendWith(WindowRobot.class)
class HexBufferViewTest {

    private static final long MIB_64 = 64L << 20;
    private static final byte[] HELLO = "HelloWorld".getBytes(StandardCharsets.US_ASCII);
    private static final long HELLO_AT = 0x20;

    /** 64 MiB computed from the offset (no array behind it), HelloWorld at 0x20; counts what is read. */
    static class CountingSource implements ByteSource {
        final AtomicLong bytesRead = new AtomicLong();
        final AtomicLong reads = new AtomicLong();

        /** A 64 MiB source whose every byte is {@code fill}: a new snapshot of the same length. */
        static CountingSource filledWith(char fill) {
            return new CountingSource() {
                @Override
                public byte[] read(long offset, int length) {
                    byte[] bytes = super.read(offset, length);
                    java.util.Arrays.fill(bytes, (byte) fill);
                    return bytes;
                }
            };
        }

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

    /** Every row the list holds, shown or not. */
    private Set<Node> allRows(FxRobot robot) {
        ListView<?> list = robot.from(view).lookup(".list-view").queryAs(ListView.class);
        return robot.from(list).lookup("." + HexBufferView.ROW_CLASS).queryAll();
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

    /** The row's bytes in hex, nothing between them. */
    private static String hex(Node row) {
        return ((HexBufferViewSkin.RowView) row).hexText("");
    }

    private static String ascii(Node row) {
        return ((HexBufferViewSkin.RowView) row).asciiText();
    }

    private static String address(Node row, FxRobot robot) {
        return ((HexBufferViewSkin.RowView) row).addressText();
    }

    private Optional<Node> rowAt(FxRobot robot, String address) {
        return visibleRows(robot).stream().filter(row -> address.equals(address(row, robot))).findFirst();
    }

    @Test
    void rendersTheFirstRowsWithAddressesHexAndAscii(FxRobot robot) {
        Node row = rowAt(robot, "7f3a2c001020").orElseThrow();
        assertTrue(ascii(row).startsWith("HelloWorld......"),
                ascii(row));
        assertEquals("48656c6c6f576f726c64" + "000000000000", hex(row));
        assertEquals("7f3a2c001020: 48 65 6c 6c 6f 57 6f 72 6c 64 00 00 00 00 00 00 | HelloWorld......",
                row.queryAccessibleAttribute(AccessibleAttribute.TEXT), "a screen reader reads the whole row");
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
        assertEquals(expected.toString(), hex(last));
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
    void highlightedBytesAreDrawnChangedInHexAndAscii(FxRobot robot) {
        robot.interact(() -> view.highlight(HELLO_AT, HELLO.length));
        WaitForAsyncUtils.waitForFxEvents();
        HexBufferViewSkin.RowView row = (HexBufferViewSkin.RowView) rowAt(robot, "7f3a2c001020").orElseThrow();
        for (int i = 0; i < 16; i++) {
            assertEquals(i < HELLO.length, row.isChanged(i), "byte " + i);
        }
        assertEquals(Color.web("#fde68a"), view.getChangedColor(), "-rl-changed, from the style sheets");
        assertEquals(Color.web("#fde68a"), backgroundOf(robot, row, 0), "the first changed byte's background");
        assertEquals(Color.web("#fde68a"), backgroundOf(robot, row, HELLO.length - 1), "the last changed byte's");
        assertNotEquals(Color.web("#fde68a"), backgroundOf(robot, row, HELLO.length), "the first unchanged byte's");
        HexBufferViewSkin.RowView other = (HexBufferViewSkin.RowView) rowAt(robot, "7f3a2c001000").orElseThrow();
        for (int i = 0; i < 16; i++) {
            assertFalse(other.isChanged(i), "row 0 byte " + i);
        }

        robot.interact(view::clearHighlights);
        WaitForAsyncUtils.waitForFxEvents();
        HexBufferViewSkin.RowView cleared = (HexBufferViewSkin.RowView) rowAt(robot, "7f3a2c001020").orElseThrow();
        assertFalse(cleared.isChanged(0));
        assertNotEquals(Color.web("#fde68a"), backgroundOf(robot, cleared, 0), "no longer drawn changed");
    }

    /** The row's colour in the middle of hex byte {@code i}'s cell, a pixel below its top (above the glyphs). */
    private static Color backgroundOf(FxRobot robot, HexBufferViewSkin.RowView row, int i) {
        javafx.geometry.Rectangle2D cell = row.byteCell(i);
        WritableImage[] shot = new WritableImage[1];
        robot.interact(() -> shot[0] = row.snapshot(null, null));
        return shot[0].getPixelReader().getColor((int) (cell.getMinX() + cell.getWidth() / 2),
                (int) cell.getMinY() + 1);
    }

    /** The header row names the byte offsets in both columns; a screen reader reads no bytes there. */
    @Test
    void theHeaderNamesTheByteOffsets(FxRobot robot) {
        HexBufferViewSkin.RowView header = robot.from(view).lookup("." + HexBufferView.HEADER_CLASS)
                .queryAs(HexBufferViewSkin.RowView.class);
        assertEquals("000102030405060708090a0b0c0d0e0f", header.hexText(""));
        assertEquals("0123456789abcdef", header.asciiText());
        assertEquals(null, header.queryAccessibleAttribute(AccessibleAttribute.TEXT));
        Node row = rowAt(robot, "7f3a2c001020").orElseThrow();
        assertEquals(row.getAccessibleRole(), row.queryAccessibleAttribute(AccessibleAttribute.ROLE),
                "a row answers the other questions as any node does");
    }

    /**
     * Each byte is drawn in its cells, hex and ASCII, in the colour of what it is: a byte of text
     * in the text colour, a zero in the quiet one (in both columns), a byte that is not printable
     * in the text colour as hex and quiet as its ASCII dot, a changed byte in the changed colour.
     */
    @Test
    void eachByteIsDrawnInItsCellsInTheColourOfWhatItIs(FxRobot robot) {
        byte[] bytes = new byte[16];
        bytes[0] = 'H';
        bytes[1] = 0;
        bytes[2] = 0x01;
        bytes[3] = 'W';
        robot.interact(() -> {
            view.setBaseAddress(0);
            view.setSource(ByteSource.of(bytes));
            view.clearHighlights();
            view.highlight(3, 1);
        });
        WaitForAsyncUtils.waitForFxEvents();
        HexBufferViewSkin.RowView row = (HexBufferViewSkin.RowView) rowAt(robot, "00000000").orElseThrow();
        WritableImage[] shot = new WritableImage[1];
        robot.interact(() -> shot[0] = row.snapshot(null, null));
        Color text = view.getTextColor();
        Color quiet = view.getQuietColor();
        Color changed = view.getChangedTextColor();
        List<Color> inks = List.of(text, quiet, changed);
        assertEquals(text, ink(shot[0], row.byteCell(0), inks), "'H' in hex");
        assertEquals(text, ink(shot[0], row.asciiCell(0), inks), "'H' as ASCII");
        assertEquals(quiet, ink(shot[0], row.byteCell(1), inks), "a zero in hex");
        assertEquals(quiet, ink(shot[0], row.asciiCell(1), inks), "a zero's dot");
        assertEquals(text, ink(shot[0], row.byteCell(2), inks), "0x01 in hex");
        assertEquals(quiet, ink(shot[0], row.asciiCell(2), inks), "0x01's dot");
        assertEquals(changed, ink(shot[0], row.byteCell(3), inks), "a changed 'W' in hex");
        assertEquals(changed, ink(shot[0], row.asciiCell(3), inks), "a changed 'W' as ASCII");
    }

    /**
     * The colour of {@code inks} nearest to the pixel of {@code cell} that differs most from the
     * cell's background (its top left pixel): what the glyph there was drawn with.
     */
    private static Color ink(WritableImage image, javafx.geometry.Rectangle2D cell, List<Color> inks) {
        javafx.scene.image.PixelReader pixels = image.getPixelReader();
        Color background = pixels.getColor((int) cell.getMinX(), (int) cell.getMinY());
        Color most = background;
        for (int y = (int) cell.getMinY(); y < (int) cell.getMaxY(); y++) {
            for (int x = (int) Math.ceil(cell.getMinX()); x < (int) cell.getMaxX(); x++) {
                Color at = pixels.getColor(x, y);
                if (distance(at, background) > distance(most, background)) {
                    most = at;
                }
            }
        }
        assertTrue(distance(most, background) > 0.2, "nothing drawn in " + cell);
        Color found = most;
        return inks.stream().min(java.util.Comparator.comparingDouble(ink -> distance(ink, found))).orElseThrow();
    }

    private static double distance(Color a, Color b) {
        return Math.abs(a.getRed() - b.getRed()) + Math.abs(a.getGreen() - b.getGreen())
                + Math.abs(a.getBlue() - b.getBlue());
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
        assertEquals("", hex(failed), "no bytes drawn");
        assertEquals("7f3a2c001020: read failed: the MR was deregistered",
                failed.queryAccessibleAttribute(AccessibleAttribute.TEXT), "a screen reader reads the error");
        Node fine = rowAt(robot, "7f3a2c001000").orElseThrow();
        assertFalse(robot.from(fine).lookup("." + HexBufferView.ERROR_CLASS).queryAs(Label.class).isVisible());
        assertEquals("00000000000000000000000000000000", hex(fine));
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
        CountingSource changed = CountingSource.filledWith('A');
        robot.interact(() -> view.setSource(changed));
        WaitForAsyncUtils.waitForFxEvents();
        Node row = rowAt(robot, address).orElseThrow(() -> new AssertionError("the view went back to the top"));
        assertEquals("AAAAAAAAAAAAAAAA", ascii(row), "the new snapshot's bytes");
        assertTrue(changed.bytesRead.get() > 0 && changed.bytesRead.get() <= 4096,
                "read only the rows shown: " + changed.bytesRead.get());
        // A snapshot of another length is another buffer: from its top.
        robot.interact(() -> view.setSource(ByteSource.of(new byte[64])));
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(rowAt(robot, "7f3a2c001000").isPresent(), "a buffer of another length shows its first row");
    }

    /**
     * A row is one drawn node (a canvas; the error label beside it stays hidden), not 33 labels: a
     * new snapshot of a 64 MiB buffer restyled every label of every row shown.
     */
    @Test
    void aRowIsOneCanvasNotALabelPerByte(FxRobot robot) {
        Node row = rowAt(robot, "7f3a2c001020").orElseThrow();
        List<Node> shown = shownInside(row);
        assertEquals(1, shown.size(), "nodes shown in a row: " + shown);
        assertTrue(shown.get(0) instanceof Canvas, shown.get(0).toString());
        Node header = robot.from(view).lookup("." + HexBufferView.HEADER_CLASS).query();
        assertEquals(1, shownInside(header).size(), "nodes shown in the header: " + shownInside(header));
    }

    /** The visible nodes under {@code node}, at any depth, not itself. */
    private static List<Node> shownInside(Node node) {
        List<Node> shown = new java.util.ArrayList<>();
        if (node instanceof javafx.scene.Parent parent) {
            for (Node child : parent.getChildrenUnmodifiable()) {
                if (child.isVisible()) {
                    shown.add(child);
                    shown.addAll(shownInside(child));
                }
            }
        }
        return shown;
    }

    /**
     * A new snapshot of the same length and new highlights draw the rows shown again, in place:
     * no row is made again, or taken out of its cell and put back (a {@code ListView.refresh()}
     * did that, and each row put back was styled again as a new node).
     */
    @Test
    void aNewSnapshotDrawsTheSameRowsAgainWithoutMakingNewOnes(FxRobot robot) {
        Set<Node> before = Collections.newSetFromMap(new IdentityHashMap<>());
        AtomicInteger moves = new AtomicInteger();
        robot.interact(() -> {
            before.addAll(allRows(robot));
            // A row taken out of its cell and put back is styled again, all of it, as a new node.
            before.forEach(row -> row.parentProperty().addListener((observable, was, now) -> moves.incrementAndGet()));
        });
        CountingSource changed = CountingSource.filledWith('B');
        robot.interact(() -> {
            view.setSource(changed);
            view.clearHighlights();
            view.highlight(0, 64);
        });
        WaitForAsyncUtils.waitForFxEvents();
        HexBufferViewSkin.RowView row = (HexBufferViewSkin.RowView) rowAt(robot, "7f3a2c001020").orElseThrow();
        assertEquals("BBBBBBBBBBBBBBBB", ascii(row));
        assertTrue(row.isChanged(15));
        assertTrue(before.contains(row), "the row shown is one made before the snapshot");
        Set<Node> after = Collections.newSetFromMap(new IdentityHashMap<>());
        after.addAll(allRows(robot));
        assertEquals(before, after, "the same rows, none made");
        assertEquals(0, moves.get(), "rows taken out of their cells and put back");
        assertTrue(changed.bytesRead.get() <= 4096, "read only the rows shown: " + changed.bytesRead.get());
    }

    /**
     * A new snapshot whose bytes and highlights are those shown draws no row again (the window
     * repaints nothing there); a byte that changed draws its row alone. Every completion gave both
     * buffers a new snapshot, and every row shown was drawn and painted again though its bytes
     * had not changed.
     */
    @Test
    void aSnapshotOfTheSameBytesDrawsNoRowAgain(FxRobot robot) {
        byte[] bytes = new byte[64];
        System.arraycopy(HELLO, 0, bytes, 16, HELLO.length);
        robot.interact(() -> {
            view.setBaseAddress(0);
            view.setSource(ByteSource.of(bytes));
            view.clearHighlights();
            view.highlight(16, HELLO.length);
        });
        WaitForAsyncUtils.waitForFxEvents();
        List<String> addresses = List.of("00000000", "00000010", "00000020", "00000030");
        java.util.function.Supplier<List<Integer>> draws = () -> addresses.stream()
                .map(address -> ((HexBufferViewSkin.RowView) rowAt(robot, address).orElseThrow()).draws())
                .collect(Collectors.toList());
        List<Integer> before = draws.get();
        assertTrue(before.stream().allMatch(count -> count > 0), "each row drawn: " + before);
        robot.interact(() -> {
            view.setSource(ByteSource.of(bytes.clone()));
            view.clearHighlights();
            view.highlight(16, HELLO.length);
            view.refresh();
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(before, draws.get(), "rows drawn again for the same bytes and highlights");
        byte[] changed = bytes.clone();
        changed[0x21] = 'x';
        robot.interact(() -> view.setSource(ByteSource.of(changed)));
        WaitForAsyncUtils.waitForFxEvents();
        List<Integer> after = draws.get();
        assertEquals(List.of(before.get(0), before.get(1), before.get(2) + 1, before.get(3)), after,
                "only the row whose byte changed is drawn again");
        assertEquals(".x..............", ascii(rowAt(robot, "00000020").orElseThrow()));
        assertEquals("00000020: 00 78 00 00 00 00 00 00 00 00 00 00 00 00 00 00 | .x..............",
                rowAt(robot, "00000020").orElseThrow().queryAccessibleAttribute(AccessibleAttribute.TEXT),
                "a screen reader reads the row's new bytes");
    }

    /**
     * A layout pass with no new snapshot (the window laid out again for anything else, each frame
     * of a storm of packets) reads no bytes: the rows shown read the buffer only when it changed.
     */
    @Test
    void aLayoutPassWithNoNewSnapshotReadsNothing(FxRobot robot) {
        WaitForAsyncUtils.waitForFxEvents();
        robot.interact(() -> {
            source.reads.set(0);
            view.requestLayout();
            view.getParent().requestLayout();
        });
        WaitForAsyncUtils.waitForFxEvents();
        robot.interact(() -> view.layout());
        assertEquals(0, source.reads.get(), "reads of the buffer");
        robot.interact(view::refresh);
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(source.reads.get() > 0, "a refresh reads the rows shown again");
    }

    @Test
    void refreshRereadsTheVisibleRows(FxRobot robot) {
        byte[] bytes = new byte[40];
        robot.interact(() -> {
            view.setBaseAddress(0);
            view.setSource(ByteSource.of(bytes));
        });
        System.arraycopy(HELLO, 0, bytes, 16, HELLO.length);
        assertEquals("................", ascii(rowAt(robot, "00000010").orElseThrow()));
        robot.interact(view::refresh);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals("HelloWorld......", ascii(rowAt(robot, "00000010").orElseThrow()));
        assertEquals("        ", ascii(rowAt(robot, "00000020").orElseThrow())
                .substring(8), "a short last row leaves the rest blank");
        assertEquals("00".repeat(8), hex(rowAt(robot, "00000020").orElseThrow()), "the short row's 8 bytes");
        robot.interact(() -> view.highlight(0x24, 16));
        WaitForAsyncUtils.waitForFxEvents();
        HexBufferViewSkin.RowView last = (HexBufferViewSkin.RowView) rowAt(robot, "00000020").orElseThrow();
        assertTrue(last.isChanged(7), "the last byte highlighted");
        assertFalse(last.isChanged(8), "no highlight past the buffer's end");
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
