package org.rdmalab.app.lab;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.rdmalab.app.buffer.ByteSource;
import org.rdmalab.app.common.UiText;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.verbs.MemoryRegion;

/**
 * The buffers pane: in the loopback lab each side's registered buffer (the server's is the
 * client's remote buffer, read in this process); with two machines the local buffer and the remote
 * one as last seen, labelled by where it came from ("RDMA READ at t" or "peer snapshot (lab
 * protocol) at t"). The bytes the last operation changed are found by comparing with what was
 * shown before, up to {@link #DIFF_LIMIT} bytes. JavaFX thread only; reading a buffer is a copy
 * out of registered memory and never waits.
 */
public final class BuffersViewModel {

    /** How many leading bytes of a buffer are compared to find what changed. */
    static final int DIFF_LIMIT = SideViewModel.SNAPSHOT_LIMIT;

    /**
     * One buffer as shown.
     */
    public static final class Pane {

        private final String key;
        private ByteSource source = ByteSource.of(new byte[0]);
        private String caption = "";
        private long baseAddress;
        private List<long[]> changed = List.of();
        private byte[] shown = new byte[0];

        Pane(String key) {
            this.key = key;
        }

        /** "server", "client", "local" or "remote". */
        public String key() {
            return key;
        }

        public ByteSource source() {
            return source;
        }

        public String caption() {
            return caption;
        }

        public long baseAddress() {
            return baseAddress;
        }

        /** The ranges ({offset, length}) the last change touched. */
        public List<long[]> changed() {
            return changed;
        }

        /** Takes a copy of the buffer as it was when an event of its side happened. */
        void record(byte[] snapshot) {
            List<long[]> ranges = diff(shown, snapshot);
            if (!ranges.isEmpty()) {
                changed = ranges;
            }
            shown = snapshot;
        }

        void update(ByteSource newSource, String newCaption, long newBase) {
            caption = newCaption;
            baseAddress = newBase;
            source = newSource;
            byte[] now;
            try {
                now = newSource.read(0, (int) Math.min(newSource.length(), DIFF_LIMIT));
            } catch (RuntimeException e) {
                now = new byte[0];
            }
            // An empty or unreadable buffer highlights nothing, and the next read is compared with nothing.
            List<long[]> ranges = diff(shown, now);
            if (now.length == 0) {
                changed = List.of();
            } else if (!ranges.isEmpty()) {
                changed = ranges;
            }
            shown = now;
        }
    }

    private final LabViewModel lab;
    private final java.util.concurrent.Executor ui;
    private boolean refreshPending;
    private final ObservableList<Pane> panes = FXCollections.observableArrayList();
    private final ReadOnlyIntegerWrapper version = new ReadOnlyIntegerWrapper();
    private byte[] remoteBytes;
    private long remoteOffset;
    private String remoteLabel = "";

    /**
     * @param ui where a refresh runs after events asked for one (the next frame, once however many
     *     events asked; tests pass a same-thread executor)
     */
    public BuffersViewModel(LabViewModel lab, java.util.concurrent.Executor ui) {
        this.lab = lab;
        this.ui = ui;
        lab.sides().addListener((javafx.collections.ListChangeListener<SideViewModel>) change -> rebuild());
        lab.afterEvent(this::onEvent);
        rebuild();
    }

    private void rebuild() {
        List<Pane> built = new ArrayList<>();
        remoteBytes = null;
        remoteLabel = "";
        boolean loopback = lab.currentProperty().get() == null
                || lab.currentProperty().get().mode() == LabSetup.Mode.LOOPBACK;
        for (SideViewModel side : lab.sides()) {
            built.add(new Pane(side.name()));
        }
        if (!loopback) {
            built.add(new Pane("remote"));
        }
        panes.setAll(built);
        refresh();
    }

    private void onEvent(SideViewModel.SideEvent sideEvent) {
        if (sideEvent.buffer() != null) {
            panes.stream().filter(pane -> pane.key().equals(sideEvent.side().name())).findFirst()
                    .ifPresent(pane -> pane.record(sideEvent.buffer()));
        }
        if (sideEvent.event() instanceof LabEvent.RemoteBuffer remote) {
            remoteBytes = remote.bytes();
            remoteOffset = remote.offset();
            remoteLabel = UiText.format("buffers.seenAt", remote.source(), LabViewModel.TIME.format(remote.at()));
        }
        if (sideEvent.event() instanceof LabEvent.StepFinished || sideEvent.event() instanceof LabEvent.Completion
                || sideEvent.event() instanceof LabEvent.BufferChanged
                || sideEvent.event() instanceof LabEvent.RemoteBuffer) {
            if (!refreshPending) {
                refreshPending = true;
                ui.execute(() -> {
                    refreshPending = false;
                    refresh();
                });
            }
        }
    }

    /** Reads every buffer again and finds what changed. */
    void refresh() {
        for (Pane pane : panes) {
            if (pane.key().equals("remote")) {
                if (remoteBytes == null) {
                    pane.update(ByteSource.of(new byte[0]), UiText.text("buffers.remoteNotSeen"), 0);
                } else {
                    long base = lab.sides().isEmpty() ? 0 : lab.sides().get(0).session().resources().remoteData()
                            .map(data -> data.addr()).orElse(0L) + remoteOffset;
                    pane.update(ByteSource.of(remoteBytes), UiText.text("buffers.remote") + " · " + remoteLabel, base);
                }
                continue;
            }
            Optional<SideViewModel> side = lab.sides().stream().filter(each -> each.name().equals(pane.key())).findFirst();
            Optional<MemoryRegion> mr = side.flatMap(each -> each.session().resources().memoryRegion());
            String who = side.map(each -> UiText.format("buffers.of", UiText.side(each.name())) + " · " + each.address())
                    .orElse(pane.key());
            if (mr.isEmpty()) {
                pane.update(ByteSource.of(new byte[0]), who + " · " + UiText.text("buffers.noMr"), 0);
                continue;
            }
            MemoryRegion region = mr.get();
            String role = UiText.text(pane.key().equals("server") ? "buffers.clientsRemote" : pane.key().equals("client")
                    ? "buffers.serversRemote" : "buffers.local");
            pane.update(source(region), who + " · " + role + " · " + UiText.format("buffers.bytesAt", region.length(),
                    LabViewModel.TIME.format(Instant.now())), region.address());
        }
        version.set(version.get() + 1);
    }

    private static ByteSource source(MemoryRegion region) {
        return new ByteSource() {
            @Override
            public long length() {
                return region.length();
            }

            @Override
            public byte[] read(long offset, int length) {
                return region.read((int) offset, (int) Math.min(length, region.length() - offset));
            }
        };
    }

    /** Ranges where {@code before} and {@code after} differ (bytes beyond the shorter count as changed). */
    static List<long[]> diff(byte[] before, byte[] after) {
        List<long[]> ranges = new ArrayList<>();
        if (before.length == 0) {
            return ranges;
        }
        int start = -1;
        int length = Math.max(before.length, after.length);
        for (int i = 0; i <= length; i++) {
            boolean differs = i < length && (i >= before.length || i >= after.length || before[i] != after[i]);
            if (differs && start < 0) {
                start = i;
            } else if (!differs && start >= 0) {
                ranges.add(new long[] {start, i - start});
                start = -1;
            }
        }
        return ranges;
    }

    /** The buffers, in display order. */
    public ObservableList<Pane> panes() {
        return panes;
    }

    /** Rises each time the buffers were read again. */
    public ReadOnlyIntegerProperty versionProperty() {
        return version.getReadOnlyProperty();
    }
}
