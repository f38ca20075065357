package org.rdmalab.app.ladder;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.lab.CompletionRow;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.ladder.Arrow;
import org.rdmalab.ladder.Ladder;
import org.rdmalab.ladder.WorkRequest;
import org.rdmalab.ladder.WorkRequestTracker;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WorkCompletion;

/**
 * The work requests the lab's sides posted, tied to their packets on the ladder and their
 * completions, and the one selection the three share: selecting a request (in its table), one of
 * its packets (a click on the ladder) or its completion (in the completions table) selects the
 * other two, and the ladder highlights the request's packets with their ACKs and NAKs.
 *
 * <p>It hears the lab's events in their batches (the posts, the completions, a QP reset) and reads
 * the arrows the live ladder added each time the ladder changed; the {@link WorkRequestTracker}
 * does the tying. The table refreshes once a batch for posts and completions, and for the packets
 * as the ladder shows them ({@link LadderViewModel#shownRevisionProperty()}: at most every
 * {@link LadderViewModel#REDRAW_MILLIS} while they stream).
 *
 * <p>JavaFX thread only (tests may drive it from their own single thread).
 */
public final class WorkRequestsViewModel {

    /** Requests kept (as many as the completions table keeps rows). */
    static final int CAPACITY = 10_000;

    private final LabViewModel lab;
    private final LadderViewModel ladder;
    private WorkRequestTracker tracker = newTracker();
    private Ladder scanned;
    private long scannedIndex;
    private boolean dirty;
    /** Packets were tied to requests since the table last showed them. */
    private boolean packetsDirty;
    private boolean syncing;
    private final ObservableList<WorkRequest> requests = FXCollections.observableArrayList();
    private final ObjectProperty<WorkRequest> selected = new SimpleObjectProperty<>();
    private final ReadOnlyLongWrapper revision = new ReadOnlyLongWrapper();
    private final ReadOnlyStringWrapper detail = new ReadOnlyStringWrapper("");
    private final ReadOnlyLongWrapper reveal = new ReadOnlyLongWrapper(-1);
    private final Map<WorkRequest, WorkCompletion> completionOf = new IdentityHashMap<>();
    private final Map<WorkCompletion, WorkRequest> requestOf = new IdentityHashMap<>();

    public WorkRequestsViewModel(LabViewModel lab, LadderViewModel ladder) {
        this.lab = lab;
        this.ladder = ladder;
        detail.set(describe(null));
        lab.afterEvent(this::heard);
        lab.afterEvents(this::batchDone);
        lab.sides().addListener((ListChangeListener<SideViewModel>) change -> restart());
        ladder.revisionProperty().addListener((observable, before, now) -> scan());
        // The table shows what the scans found as the ladder is shown (a few times a second in a storm).
        ladder.shownRevisionProperty().addListener((observable, before, now) -> packetsShown());
        ladder.clickedProperty().addListener((observable, before, arrow) -> clicked(arrow));
        lab.selectedCompletionProperty().addListener((observable, before, row) -> completionSelected(row));
        selected.addListener((observable, before, request) -> selectionChanged(request));
    }

    private static WorkRequestTracker newTracker() {
        return new WorkRequestTracker(CAPACITY, LadderViewModel.LIVE_CAPACITY);
    }

    /** New sessions: none of the old requests is theirs. */
    private void restart() {
        tracker = newTracker();
        scannedIndex = 0;
        scanned = ladder.liveLadder();
        completionOf.clear();
        requestOf.clear();
        selected.set(null);
        requests.clear();
        dirty = true;
        batchDone();
    }

    private void heard(SideViewModel.SideEvent event) {
        SideViewModel side = event.side();
        if (event.event() instanceof LabEvent.SendPosted post) {
            requests.add(tracker.posted(side.name(), side.address(), post.qpNum(), post.wrId(), post.opcode(),
                    post.length(), post.signaled()));
            if (requests.size() > tracker.size()) {
                requests.remove(0, requests.size() - tracker.size());
            }
            dirty = true;
        } else if (event.event() instanceof LabEvent.Completion completion) {
            WorkCompletion wc = completion.completion();
            tracker.completed(side.name(), wc.qpNum(), wc.wrId(), wc.status().cName()).ifPresent(request -> {
                completionOf.put(request, wc);
                requestOf.put(wc, request);
                dirty = true;
            });
        } else if (event.event() instanceof LabEvent.QpStateChange change && change.side() == LabEvent.Side.LOCAL
                && change.to() == QpState.RESET) {
            tracker.reset(side.name());
        }
    }

    /** Reads the arrows the live ladder added since the last time. */
    private void scan() {
        Ladder live = ladder.liveLadder();
        if (live != scanned) {
            scanned = live;
            scannedIndex = 0;
        }
        List<Arrow> added = live.arrowsAfter(scannedIndex);
        if (added.isEmpty()) {
            return;
        }
        scannedIndex = added.get(added.size() - 1).index();
        tracker.seen(added);
        WorkRequest chosen = selected.get();
        if (chosen != null && !ladder.shownProperty().get().fromCapture()) {
            for (long index : chosen.packets()) {
                ladder.selectedPackets().add(index);
            }
        }
        packetsDirty = true;
    }

    private void packetsShown() {
        if (packetsDirty) {
            packetsDirty = false;
            dirty = true;
            batchDone();
        }
    }

    private void batchDone() {
        if (dirty) {
            dirty = false;
            detail.set(describe(selected.get()));
            revision.set(revision.get() + 1);
        }
    }

    /** Selects {@code request} (null: none) and brings its first packet into the ladder's view. */
    public void select(WorkRequest request) {
        selected.set(request);
        long[] packets = request == null ? new long[0] : request.packets();
        if (packets.length > 0 && !ladder.shownProperty().get().fromCapture()) {
            reveal.set(-1);
            reveal.set(packets[0]);
        }
    }

    private void selectionChanged(WorkRequest request) {
        detail.set(describe(request));
        if (syncing) {
            return;
        }
        syncing = true;
        try {
            if (!ladder.shownProperty().get().fromCapture()) {
                ladder.selectedPackets().clear();
                if (request != null) {
                    List<Long> indices = new ArrayList<>();
                    for (long index : request.packets()) {
                        indices.add(index);
                    }
                    ladder.selectedPackets().addAll(indices);
                }
            }
            lab.selectedCompletionProperty().set(rowOf(request));
        } finally {
            syncing = false;
        }
    }

    /** A packet clicked on the ladder selects its request and the request's completion. */
    private void clicked(Arrow arrow) {
        if (syncing || ladder.shownProperty().get().fromCapture()) {
            return;
        }
        WorkRequest request = arrow == null ? null : tracker.ofPacket(arrow.index()).orElse(null);
        if (request == null) {
            // The ladder keeps the clicked packet alone lit; nothing else is tied to it.
            syncing = true;
            try {
                selected.set(null);
                lab.selectedCompletionProperty().set(null);
            } finally {
                syncing = false;
            }
            return;
        }
        selected.set(request);
    }

    private void completionSelected(CompletionRow row) {
        if (syncing) {
            return;
        }
        select(row == null ? null : requestOf.get(row.completion()));
    }

    private CompletionRow rowOf(WorkRequest request) {
        WorkCompletion completion = request == null ? null : completionOf.get(request);
        if (completion == null) {
            return null;
        }
        for (CompletionRow row : lab.completions()) {
            if (row.completion() == completion) {
                return row;
            }
        }
        return null;
    }

    /**
     * The row's words for its state: "posted", "in flight", "acknowledged", "completed", "flushed",
     * and a completion's error status: "completed: IBV_WC_REM_ACCESS_ERR".
     */
    public static String stateWords(WorkRequest request) {
        String words = UiText.text("wr.state." + request.state().name());
        return request.failed() && request.state() == WorkRequest.State.COMPLETED
                ? UiText.format("wr.failed", words, request.status()) : words;
    }

    /**
     * The selected request in a line: what it is, its packets, which PSNs went out again and why,
     * and its completion.
     */
    static String describe(WorkRequest request) {
        if (request == null) {
            return UiText.text("wr.pick");
        }
        StringBuilder line = new StringBuilder(UiText.format("wr.detail", UiText.side(request.side()),
                Long.toUnsignedString(request.wrId()), request.opcode().cName(), request.length()));
        if (request.message() == null) {
            line.append(' ').append(UiText.text("wr.noPacket"));
        } else {
            line.append(' ').append(UiText.format("wr.packets", request.psnRange(), request.packetsSeen()));
            List<String> bursts = resentBursts(request.resent());
            if (request.resentForgotten() > 0) {
                bursts.add(UiText.format("wr.resentMore", request.resentForgotten()));
            }
            line.append(' ').append(bursts.isEmpty() ? UiText.text("wr.resentNone")
                    : UiText.format("wr.resent", String.join("; ", bursts)));
        }
        line.append(' ').append(request.status() == null ? UiText.text("wr.noCompletion")
                : UiText.format("wr.completion", request.status()));
        return line.toString();
    }

    /**
     * The PSNs sent again, a burst each ("PSN 12–14 (retransmit timeout 1.07 s)"): a burst starts
     * at a retransmission with a wait before it; the go-back-N packets after it join it.
     */
    static List<String> resentBursts(List<WorkRequest.Resent> resent) {
        List<String> bursts = new ArrayList<>();
        List<Integer> psns = new ArrayList<>();
        org.rdmalab.ladder.Gap gap = null;
        for (WorkRequest.Resent each : resent) {
            if (each.gap() != null && !psns.isEmpty()) {
                bursts.add(burst(psns, gap));
                psns.clear();
            }
            if (each.gap() != null || psns.isEmpty()) {
                gap = each.gap();
            }
            psns.add(each.psn());
        }
        if (!psns.isEmpty()) {
            bursts.add(burst(psns, gap));
        }
        return bursts;
    }

    private static String burst(List<Integer> psns, org.rdmalab.ladder.Gap gap) {
        StringBuilder ranges = new StringBuilder();
        int start = psns.get(0);
        int previous = start;
        for (int i = 1; i <= psns.size(); i++) {
            int psn = i < psns.size() ? psns.get(i) : -1;
            if (i < psns.size() && psn == ((previous + 1) & 0xFFFFFF)) {
                previous = psn;
                continue;
            }
            if (ranges.length() > 0) {
                ranges.append(", ");
            }
            ranges.append(start == previous ? Integer.toString(start) : start + "–" + previous);
            start = psn;
            previous = psn;
        }
        return gap == null ? UiText.format("wr.burst", ranges) : UiText.format("wr.burstWhy", ranges,
                ArrowLabels.gap(gap));
    }

    /** The requests, oldest first. */
    public ObservableList<WorkRequest> requests() {
        return requests;
    }

    /** The request selected (in its table, by a packet or by its completion), or null. */
    public ObjectProperty<WorkRequest> selectedProperty() {
        return selected;
    }

    /** The selected request in a line (what it is, its PSNs, which went out again and why, its completion). */
    public ReadOnlyStringProperty detailProperty() {
        return detail.getReadOnlyProperty();
    }

    /** Goes up by one each batch in which a request changed (the table redraws its rows). */
    public ReadOnlyLongProperty revisionProperty() {
        return revision.getReadOnlyProperty();
    }

    /** The ladder index the ladder should scroll to (a request selected from a table), or -1. */
    public ReadOnlyLongProperty revealProperty() {
        return reveal.getReadOnlyProperty();
    }

    /** True while the ladder shows a capture, which has no work requests. */
    public boolean showsCapture() {
        return ladder.shownProperty().get().fromCapture();
    }
}
