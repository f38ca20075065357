package org.rdmalab.app.ladder;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.collections.ObservableSet;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.ladder.Arrow;
import org.rdmalab.ladder.CaptureLadder;
import org.rdmalab.ladder.Ladder;
import org.rdmalab.ladder.QpPair;
import org.rdmalab.ladder.Summary;
import org.rdmalab.ladder.WirePacket;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.verbs.PacketEvent;

/**
 * What the Ladder tab shows: the lab's packets as they happen, or a capture opened from a file.
 *
 * <p>Live, the software devices' packet events reach it in the lab's batches (never one per
 * packet). They are held for {@link #HOLD_MILLIS} and put in time order before they join the
 * {@link Ladder}, because the receiving device may report a packet a moment before the sending
 * one does; the ladder then pairs each send with its arrival ({@link HeldPackets}). Each frame
 * gives them at most {@link #BUDGET_NANOS} of the JavaFX thread; a storm of packets is drawn over
 * the next frames, in order, and the window stays responsive. The view keeps the newest
 * {@link #LIVE_CAPACITY} arrows; every packet still goes to the session's capture file
 * ({@link SessionCapture}), which Save capture… copies. A native device (rxe0, a NIC) reports no
 * packets: the view says so and offers Open capture….
 *
 * <p>It also holds what other views link to the ladder: the packets to highlight
 * ({@link #selectedPackets()}, ladder indices) and the one the user clicked
 * ({@link #clickedProperty()}).
 *
 * <p>JavaFX thread only (tests may drive it from their own single thread with same-thread executors).
 */
public final class LadderViewModel implements AutoCloseable {

    /** Arrows a live view keeps (the capture file keeps every packet). */
    public static final int LIVE_CAPACITY = 10_000;
    /** How long live packets wait to be put in time order. */
    public static final long HOLD_MILLIS = 40;
    /**
     * The JavaFX thread's time for the ladder's new packets in one frame; what is left is drawn
     * in the next frames, so a storm of packets never stops the window for long.
     */
    static final long BUDGET_NANOS = 8_000_000;
    /**
     * Live packets waiting to be drawn at the most: when packets come faster than the frames'
     * budgets draw them (a 64 MiB READ under loss resends the rest of the message after every
     * lost response), the oldest waiting go straight to the capture, undrawn, so that the backlog
     * and the heap stay bounded and the ladder keeps up with the newest. Kept small, a fraction
     * of a second of such a storm: packets that wait longer outlive the young collections, and
     * copying them made the collector's pauses the window's longest stalls (docs/ladder.md).
     */
    static final int HELD_LIMIT = 5_000;
    /**
     * While packets stream, the views show the live ladder's changes (the chart, the summary, the
     * work requests' table) at most this often: drawing them every frame kept the software
     * renderer busy and the JavaFX thread waiting for it (docs/ladder.md). A change after a quiet
     * spell is shown at once; the last one always is.
     */
    public static final long REDRAW_MILLIS = 100;

    /** What is shown: the live lab's ladder, or a capture's. */
    public record Shown(Ladder ladder, Path capture, long truncated) {
        /** True for a capture opened from a file. */
        public boolean fromCapture() {
            return capture != null;
        }
    }

    private final LabViewModel lab;
    private final Executor background;
    private final Executor ui;
    private final Consumer<Runnable> afterHold;
    private final SessionCapture sessionCapture = new SessionCapture();
    private Ladder live = new Ladder(LIVE_CAPACITY);
    private final ArrowTrack liveTrack = new ArrowTrack(LIVE_CAPACITY);
    private ArrowTrack track = liveTrack;
    private final HeldPackets pending = new HeldPackets(System::nanoTime, BUDGET_NANOS);
    private final List<PacketEvent> toWrite = new ArrayList<>();
    /** Live packets not drawn because the view fell behind (they are in the capture). */
    private long notDrawn;
    private boolean flushArmed;
    private final ReadOnlyObjectWrapper<Shown> shown = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyLongWrapper revision = new ReadOnlyLongWrapper();
    private final ReadOnlyLongWrapper shownRevision = new ReadOnlyLongWrapper();
    private final org.rdmalab.app.common.Throttle redraw;
    private final javafx.beans.property.BooleanProperty onScreen = new javafx.beans.property.SimpleBooleanProperty(true);
    /** A redraw came while the views were not on screen (JavaFX thread). */
    private boolean missed;
    private final ObservableList<QpPair> pairs = FXCollections.observableArrayList();
    private final ObjectProperty<QpPair> pair = new SimpleObjectProperty<>();
    private final ObservableSet<Long> selected = FXCollections.observableSet(new java.util.HashSet<>());
    private final ReadOnlyObjectWrapper<Arrow> clicked = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper notice = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper outcome = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper nativeDevice = new ReadOnlyBooleanWrapper();
    private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper();
    private CaptureFiles files = CaptureFiles.dialogs();
    private Set<String> labAddresses = Set.of();

    /**
     * @param lab the lab whose packets it shows
     * @param background reads captures
     * @param ui the JavaFX thread (a FrameExecutor), or a same-thread executor in tests
     * @param afterHold runs its task on the JavaFX thread after {@link #HOLD_MILLIS} (a pause
     *     transition in the window; tests may run it at once)
     */
    public LadderViewModel(LabViewModel lab, Executor background, Executor ui, Consumer<Runnable> afterHold) {
        this(lab, background, ui, afterHold, org.rdmalab.app.common.Throttle::never);
    }

    /**
     * As {@link #LadderViewModel(LabViewModel, Executor, Executor, Consumer)}, with the views shown
     * each change through {@code redraws} (given what to run, the throttle that runs it: at most
     * every {@link #REDRAW_MILLIS} in the window, {@link #redrawThrottle()}).
     */
    public LadderViewModel(LabViewModel lab, Executor background, Executor ui, Consumer<Runnable> afterHold,
                           java.util.function.Function<Runnable, org.rdmalab.app.common.Throttle> redraws) {
        this.lab = lab;
        this.background = background;
        this.ui = ui;
        this.afterHold = afterHold;
        this.redraw = redraws.apply(this::show);
        onScreen.addListener((observable, before, now) -> {
            if (now && missed) {
                show();
            }
        });
        shown.set(new Shown(live, null, 0));
        lab.afterEvent(this::heard);
        lab.sides().addListener((ListChangeListener<SideViewModel>) change -> restart());
        lab.currentProperty().addListener((observable, before, setup) -> checkDevice(setup));
        checkDevice(lab.currentProperty().get());
        restart();
    }

    /** In the window: the hold is a pause transition on the JavaFX thread. */
    public static Consumer<Runnable> pauseTransition() {
        return pauseTransition(HOLD_MILLIS);
    }

    private static Consumer<Runnable> pauseTransition(long millis) {
        return task -> {
            javafx.animation.PauseTransition pause = new javafx.animation.PauseTransition(
                    javafx.util.Duration.millis(millis));
            pause.setOnFinished(event -> task.run());
            pause.play();
        };
    }

    /**
     * In the window: the views show the ladder's changes at most every {@link #REDRAW_MILLIS}, on
     * the JavaFX thread ({@code -Drdmalab.redrawMillis=N} sets another interval, 0 every frame, for
     * measuring: docs/ladder.md).
     */
    public static java.util.function.Function<Runnable, org.rdmalab.app.common.Throttle> redrawThrottle() {
        long millis = Long.getLong("rdmalab.redrawMillis", REDRAW_MILLIS);
        return action -> new org.rdmalab.app.common.Throttle(millis * 1_000_000L, System::nanoTime,
                pauseTransition(millis), action);
    }

    private void checkDevice(LabSetup setup) {
        boolean isNative = setup != null && !"soft0".equals(setup.device());
        nativeDevice.set(isNative);
        notice.set(isNative && !shown.get().fromCapture() ? UiText.format("ladder.native", setup.device()) : "");
    }

    /** New sessions: a new live ladder and a new capture file. */
    private void restart() {
        pending.clear();
        notDrawn = 0;
        live = new Ladder(LIVE_CAPACITY);
        liveTrack.clear();
        sessionCapture.restart();
        labAddresses = Set.copyOf(lab.sides().stream().map(SideViewModel::address).toList());
        if (!shown.get().fromCapture()) {
            shown.set(new Shown(live, null, 0));
            changedNow();
        }
    }

    private void heard(SideViewModel.SideEvent event) {
        if (event.event() instanceof LabEvent.Packet packet && packet.packet().bytes() != null) {
            pending.add(packet.packet());
            if (!flushArmed) {
                flushArmed = true;
                afterHold.accept(this::flush);
            }
        }
    }

    /**
     * Puts the held packets that can no longer be overtaken into the ladder, in time order (all of
     * them when nothing new arrived for a whole hold), for at most {@link #BUDGET_NANOS}; what is
     * left waits for the next frame, and the window draws in between.
     */
    void flush() {
        flushArmed = false;
        int before = toWrite.size();
        int shed = pending.shedBeyond(HELD_LIMIT, toWrite::add);
        if (shed > 0) {
            // Packets, each once: the send of the lab's own, the arrival of a peer's.
            for (int i = before; i < toWrite.size(); i++) {
                if (SessionCapture.onTheWire(toWrite.get(i), labAddresses)) {
                    notDrawn++;
                }
            }
            changed();
        }
        boolean[] added = new boolean[1];
        HeldPackets.Left left = pending.drain(packet -> added[0] |= take(packet));
        if (!toWrite.isEmpty()) {
            sessionCapture.write(List.copyOf(toWrite), labAddresses);
            toWrite.clear();
        }
        if (left == HeldPackets.Left.OUT_OF_TIME) {
            flushArmed = true;
            ui.execute(this::flush);
        } else if (left == HeldPackets.Left.UNSETTLED) {
            flushArmed = true;
            afterHold.accept(this::flush);
        }
        if (added[0] && !shown.get().fromCapture()) {
            changed();
        }
    }

    /** Hands one packet to the live ladder; true when the ladder drew something of it. */
    private boolean take(PacketEvent packet) {
        toWrite.add(packet);
        // The lab's own device reported the send: its arrival only completes it (a send shed
        // undrawn stays undrawn, counted once in notDrawn). A drop is drawn either way: one on the
        // way out has no send.
        Arrow arrow = packet.direction() == PacketEvent.Direction.RECEIVED
                && labAddresses.contains(SessionCapture.host(packet.source()))
                ? live.addArrival(wirePacket(packet)) : live.add(wirePacket(packet));
        liveTrack.add(arrow);
        return arrow != null;
    }

    /** A device's packet event as the ladder takes it. */
    static WirePacket wirePacket(PacketEvent packet) {
        List<String> faults = packet.faults().isEmpty() ? List.of()
                : packet.faults().stream().map(PacketEvent.Fault::toString).toList();
        boolean corrupted = !faults.isEmpty()
                && packet.faults().stream().anyMatch(fault -> fault.kind() == org.rdmalab.verbs.FaultKind.CORRUPT);
        String reason = null;
        WirePacket.Seen seen;
        switch (packet.direction()) {
            case SENT -> seen = WirePacket.Seen.SENT;
            case RECEIVED -> seen = WirePacket.Seen.RECEIVED;
            default -> {
                seen = WirePacket.Seen.DROPPED;
                String detail = packet.detail() == null ? "" : packet.detail();
                int end = detail.indexOf("; ");
                reason = end < 0 ? detail : detail.substring(0, end);
            }
        }
        boolean icrcOk = !corrupted && !(reason != null && reason.startsWith("ICRC"));
        return new WirePacket(packet.timestampNanos(), packet.source(), packet.destination(), packet.bytes(), seen, icrcOk,
                reason, faults);
    }

    /** The ladder changed while packets stream: the views show it at most every {@link #REDRAW_MILLIS}. */
    private void changed() {
        revision.set(revision.get() + 1);
        redraw.request();
    }

    /** What is shown changed because the user asked (another capture, back to live): the views show it at once. */
    private void changedNow() {
        revision.set(revision.get() + 1);
        redraw.now();
    }

    /**
     * Puts the ladder's counts in the summary and tells the views to draw it again; while they are
     * not on screen, only remembers that they will have to.
     */
    private void show() {
        if (!onScreen.get()) {
            missed = true;
            return;
        }
        missed = false;
        Ladder ladder = shown.get().ladder();
        if (pairs.size() != ladder.pairs().size()) {
            pairs.setAll(ladder.pairs());
        }
        Summary counted = ladder.summary();
        StringBuilder line = new StringBuilder(UiText.format("ladder.summary", counted.packets(), counted.messages(),
                counted.retransmissions(), counted.nakCount(), counted.dropped()));
        if (shown.get().fromCapture()) {
            line.append(' ').append(UiText.text("ladder.inferred"));
        } else if (notDrawn > 0) {
            line.append(' ').append(UiText.format("ladder.fellBehind", notDrawn));
        } else if (track.forgotten() > 0) {
            line.append(' ').append(UiText.format("ladder.newest", track.size()));
        }
        summary.set(line.toString());
        shownRevision.set(shownRevision.get() + 1);
    }

    /**
     * Opens {@code file} (pcap or pcapng) on the background thread and shows its ladder; a file that
     * cannot be read leaves a one-line notice and the view as it was.
     */
    public void openCapture(Path file) {
        loading.set(true);
        notice.set(UiText.format("ladder.reading", file.getFileName()));
        LabSetup setup = lab.currentProperty().get();
        int labPort = setup == null ? org.rdmalab.wire.UdpPorts.ROCE_V2 : setup.base().udpPort();
        background.execute(() -> {
            CaptureLadder.Result read;
            try {
                read = CaptureLadder.read(file);
                if (read.ladder().summary().packets() == 0 && labPort != org.rdmalab.wire.UdpPorts.ROCE_V2) {
                    // The lab's own capture, its devices on another UDP port than 4791.
                    read = CaptureLadder.read(file, labPort);
                }
            } catch (IOException | RuntimeException e) {
                String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                ui.execute(() -> {
                    loading.set(false);
                    notice.set(UiText.format("ladder.cannotOpen", file.getFileName(), why));
                });
                return;
            }
            CaptureLadder.Result result = read;
            ArrowTrack arrows = ArrowTrack.all(result.ladder().arrows());
            ui.execute(() -> {
                loading.set(false);
                track = arrows;
                pair.set(null);
                pairs.clear();
                selected.clear();
                shown.set(new Shown(result.ladder(), file, result.truncated()));
                notice.set(result.error() != null ? UiText.format("ladder.cutShort", file.getFileName(), result.error())
                        : result.ladder().size() == 0 ? UiText.format("ladder.noRoce", file.getFileName()) : "");
                changedNow();
            });
        });
    }

    /** Shows the live lab again after a capture. */
    public void backToLive() {
        track = liveTrack;
        pair.set(null);
        pairs.clear();
        selected.clear();
        shown.set(new Shown(live, null, 0));
        checkDevice(lab.currentProperty().get());
        changedNow();
    }

    /**
     * Saves the session's packets to {@code file} as pcap (the file {@code --pcap} writes); the
     * outcome line says how many packets or why not.
     */
    public void saveCapture(Path file) {
        // Every packet heard so far goes in, whatever the frame's budget.
        pending.settleAll();
        while (pending.size() > 0) {
            pending.settleAll();
            flush();
        }
        outcome.set(UiText.format("ladder.saving", file.getFileName()));
        sessionCapture.saveTo(file, result -> ui.execute(() -> outcome.set(result instanceof Long count
                ? UiText.format("ladder.saved", count, file.getFileName())
                : UiText.format("ladder.cannotSave", file.getFileName(), ((Exception) result).getMessage()))));
    }

    /**
     * The user clicked arrow {@code arrow} (null: empty space); it becomes the selection. The clicked
     * property changes after the selection, and on every click (clicked again, it passes through
     * null), so a view that ties the packet to more (its work request) has the last word.
     */
    public void click(Arrow arrow) {
        selected.clear();
        if (arrow != null) {
            selected.add(arrow.index());
            if (clicked.get() == arrow) {
                clicked.set(null);
            }
        }
        clicked.set(arrow);
    }

    /** The arrows shown, oldest first, for the chart (of the pair chosen, or all). */
    List<Arrow> arrows() {
        QpPair only = pair.get();
        List<Arrow> list = new ArrayList<>(track.size());
        for (int i = 0; i < track.size(); i++) {
            Arrow arrow = track.get(i);
            if (only == null || arrow.pair() == only) {
                list.add(arrow);
            }
        }
        return list;
    }

    /** Packets heard but not yet in the ladder (held for their time order, or for the next frame). */
    int pendingCount() {
        return pending.size();
    }

    /** Packets the live ladder counted so far, kept or not. */
    long summaryPacketCount() {
        return live.summary().packets();
    }

    /** The live ladder (work requests and completions join it here). */
    public Ladder liveLadder() {
        return live;
    }

    public ReadOnlyObjectProperty<Shown> shownProperty() {
        return shown.getReadOnlyProperty();
    }

    /**
     * Goes up by one each time the ladder changed (new packets, another capture), every frame
     * while packets stream: what reads the new arrows listens to it.
     */
    public ReadOnlyLongProperty revisionProperty() {
        return revision.getReadOnlyProperty();
    }

    /**
     * Goes up by one each time the views should draw the ladder again: at once after a quiet spell
     * or when the user asked, then at most every {@link #REDRAW_MILLIS} while packets stream, and
     * always after the last change. The summary changes with it.
     */
    public ReadOnlyLongProperty shownRevisionProperty() {
        return shownRevision.getReadOnlyProperty();
    }

    /**
     * Whether the views are on screen (the Ladder tab chosen). While not, the chart, the summary
     * and the work requests' table are not drawn again: under a storm, a hidden view redrawn a few
     * times a second made frames in which nothing visible changed, and JavaFX's renderer, finding no
     * dirty region in them, painted the whole window (docs/ladder.md). Shown again, they are drawn
     * at once.
     */
    public javafx.beans.property.BooleanProperty onScreenProperty() {
        return onScreen;
    }

    /** The QP pairs of what is shown. */
    public ObservableList<QpPair> pairs() {
        return pairs;
    }

    /** The pair drawn, or null for every pair side by side. */
    public ObjectProperty<QpPair> pairProperty() {
        return pair;
    }

    /** Ladder indices of the packets to highlight (other views set it: a work request's packets). */
    public ObservableSet<Long> selectedPackets() {
        return selected;
    }

    /** The packet the user clicked last, or null. */
    public ReadOnlyObjectProperty<Arrow> clickedProperty() {
        return clicked.getReadOnlyProperty();
    }

    /** A line for the top of the view: a native device, a capture that could not be read; else empty. */
    public ReadOnlyStringProperty noticeProperty() {
        return notice.getReadOnlyProperty();
    }

    /** "1 234 packets, 3 messages, 5 retransmitted, 1 NAK, 2 dropped" and what is left out. */
    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    /** What the last Save capture… did. */
    public ReadOnlyStringProperty outcomeProperty() {
        return outcome.getReadOnlyProperty();
    }

    /** True when the lab's device is a native one, whose packets the window cannot see. */
    public ReadOnlyBooleanProperty nativeDeviceProperty() {
        return nativeDevice.getReadOnlyProperty();
    }

    /** True while a capture is being read. */
    public ReadOnlyBooleanProperty loadingProperty() {
        return loading.getReadOnlyProperty();
    }

    public CaptureFiles files() {
        return files;
    }

    /** Where Open / Save capture… ask for files (tests answer without a dialog). */
    public void setFiles(CaptureFiles files) {
        this.files = files;
    }

    /** Ends the capture writer and deletes its file. */
    @Override
    public void close() {
        sessionCapture.close();
    }
}
