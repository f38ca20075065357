package org.rdmalab.app.lab;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.rdmalab.app.common.UiText;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.StepResult;
import org.rdmalab.lab.TrafficRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;

/**
 * The traffic form, for experiments once the seed's steps have brought the QPs to RTS: post any
 * send work request (WRITE, WRITE_WITH_IMM, READ, SEND, SEND_WITH_IMM, the two atomics) from a
 * chosen side, or post a receive. The post and the CQ poll run on that side's worker; in the
 * loopback lab the peer then polls its own CQ too, so a SEND's receive completion shows up.
 */
public final class TrafficViewModel {

    /** The opcodes in the order the form lists them. */
    public static final List<WrOpcode> OPCODES = List.of(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM,
            WrOpcode.RDMA_READ, WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.ATOMIC_CMP_AND_SWP,
            WrOpcode.ATOMIC_FETCH_AND_ADD);

    /** How long a post waits for its completion (the seed's MAX_POLL_CQ_TIMEOUT). */
    static final Duration POLL_TIMEOUT = Duration.ofMillis(2000);
    /** How long the peer looks for the completions the post caused there. */
    static final Duration PEER_POLL_TIMEOUT = Duration.ofMillis(500);

    private final LabViewModel lab;
    private final java.util.concurrent.Executor ui;
    private final ObjectProperty<SideViewModel> side = new SimpleObjectProperty<>();
    private final ObjectProperty<WrOpcode> opcode = new SimpleObjectProperty<>(WrOpcode.RDMA_WRITE);
    private final StringProperty wrId = new SimpleStringProperty("1");
    private final StringProperty localOffset = new SimpleStringProperty("0");
    private final StringProperty length = new SimpleStringProperty("11");
    private final StringProperty remoteOffset = new SimpleStringProperty("0");
    private final BooleanProperty hexData = new SimpleBooleanProperty();
    private final StringProperty data = new SimpleStringProperty("HelloWorld\\0");
    private final StringProperty imm = new SimpleStringProperty("0x1234");
    private final BooleanProperty signaled = new SimpleBooleanProperty(true);
    private final StringProperty compareAdd = new SimpleStringProperty("1");
    private final StringProperty swap = new SimpleStringProperty("0");
    private final StringProperty receiveWrId = new SimpleStringProperty("100");
    private final StringProperty receiveOffset = new SimpleStringProperty("0");
    private final StringProperty receiveLength = new SimpleStringProperty("11");
    private final ReadOnlyStringWrapper outcome = new ReadOnlyStringWrapper("");
    /** True while the length is the data's: it follows the data until the user sets it. */
    private boolean lengthFollowsData = true;
    private boolean settingLength;

    public TrafficViewModel(LabViewModel lab, java.util.concurrent.Executor ui) {
        this.lab = lab;
        this.ui = ui;
        lab.sides().addListener((javafx.collections.ListChangeListener<SideViewModel>) change ->
                side.set(lab.sides().isEmpty() ? null : lab.sides().get(lab.sides().size() - 1)));
        if (!lab.sides().isEmpty()) {
            side.set(lab.sides().get(lab.sides().size() - 1));
        }
        data.addListener((observable, before, now) -> followData());
        hexData.addListener((observable, before, now) -> followData());
        length.addListener((observable, before, now) -> lengthFollowsData &= settingLength);
    }

    /** Sets the length to the data's byte count while the user has not set a length of their own. */
    private void followData() {
        if (!lengthFollowsData || data.get() == null || data.get().isEmpty()) {
            return;
        }
        int bytes;
        try {
            bytes = (hexData.get() ? TrafficRequest.parseHex(data.get()) : TrafficRequest.parseText(data.get())).length;
        } catch (IllegalArgumentException e) {
            return; // Half-typed data: the length waits for data it can count.
        }
        settingLength = true;
        try {
            length.set(String.valueOf(bytes));
        } finally {
            settingLength = false;
        }
    }

    /**
     * The request as the form describes it.
     *
     * @throws IllegalArgumentException naming the field that is wrong
     */
    public TrafficRequest request() {
        WrOpcode chosen = opcode.get();
        byte[] bytes = data.get() == null || data.get().isEmpty() || chosen == WrOpcode.RDMA_READ || chosen.isAtomic()
                ? null : hexData.get() ? TrafficRequest.parseHex(data.get()) : TrafficRequest.parseText(data.get());
        int bytesLength = chosen.isAtomic() ? 8 : number("length", length.get());
        // wr_id, compare_add and swap are 64 bits in verbs.h; imm_data is 32.
        return new TrafficRequest(chosen, longNumber("wr_id", wrId.get()), number("local offset", localOffset.get()),
                bytesLength, number("remote offset", remoteOffset.get()), bytes, number("imm_data", imm.get()),
                signaled.get(), longNumber("compare_add", compareAdd.get()), longNumber("swap", swap.get()));
    }

    private static int number(String field, String text) {
        long value = longNumber(field, text);
        if (value > Integer.MAX_VALUE || value < Integer.MIN_VALUE) {
            if (field.equals("imm_data") && value <= 0xffffffffL && value >= 0) {
                return (int) value;
            }
            throw new IllegalArgumentException(UiText.format("traffic.not32Bits", field, text));
        }
        return (int) value;
    }

    private static long longNumber(String field, String text) {
        try {
            String trimmed = text == null ? "" : text.trim();
            return trimmed.toLowerCase(java.util.Locale.ROOT).startsWith("0x") ? Long.parseUnsignedLong(trimmed.substring(2), 16)
                    : Long.parseLong(trimmed);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(UiText.format("traffic.notANumber", field, text));
        }
    }

    /** Posts the send request from the chosen side and polls for its completion. */
    public void post() {
        SideViewModel from = side.get();
        if (from == null) {
            outcome.set(UiText.text("traffic.noSideToPostFrom"));
            return;
        }
        TrafficRequest request;
        try {
            request = request();
        } catch (IllegalArgumentException e) {
            outcome.set(e.getMessage());
            return;
        }
        boolean started = from.perform(UiText.format("activity.posting", request.opcode().cName()), session -> {
            StepResult posted = session.traffic().postSend(request);
            if (!posted.ok()) {
                return UiText.format("traffic.notPosted", UiText.say(posted.said()));
            }
            ui.execute(() -> lab.posted(from, request));
            if (!request.signaled()) {
                return UiText.say(posted.said()) + " " + UiText.text("traffic.unsignaled");
            }
            return UiText.say(posted.said()) + "; " + poll(session, POLL_TIMEOUT);
        }, this::posted);
        if (!started) {
            outcome.set(UiText.format("traffic.busy", UiText.side(from.name())));
            return;
        }
        if (request.opcode() == WrOpcode.SEND || request.opcode() == WrOpcode.SEND_WITH_IMM
                || request.opcode() == WrOpcode.RDMA_WRITE_WITH_IMM) {
            peerOf(from).ifPresent(peer -> peer.perform(UiText.text("activity.pollingReceive"), session ->
                    poll(session, PEER_POLL_TIMEOUT), text -> { }));
        }
    }

    private void posted(String text) {
        outcome.set(text);
    }

    private static String poll(LabSession session, Duration timeout) {
        try {
            List<WorkCompletion> polled = session.traffic().pollCompletions(timeout, 16);
            return polled.isEmpty() ? UiText.format("traffic.noCompletion", timeout.toMillis())
                    : UiText.format("traffic.completions", polled.size(), polled.get(polled.size() - 1).status().cName());
        } catch (VerbsException e) {
            return "ibv_poll_cq failed: " + e.getMessage();
        }
    }

    /** Posts a receive on the chosen side. */
    public void postReceive() {
        SideViewModel on = side.get();
        if (on == null) {
            outcome.set(UiText.text("traffic.noSide"));
            return;
        }
        long id;
        int offset;
        int bytes;
        try {
            id = longNumber("wr_id", receiveWrId.get());
            offset = number("offset", receiveOffset.get());
            bytes = number("length", receiveLength.get());
        } catch (IllegalArgumentException e) {
            outcome.set(e.getMessage());
            return;
        }
        if (!on.perform(UiText.text("activity.postingReceive"), session -> UiText.say(session.traffic()
                .postReceive(id, offset, bytes).said()), this::posted)) {
            outcome.set(UiText.format("traffic.busy", UiText.side(on.name())));
        }
    }

    private Optional<SideViewModel> peerOf(SideViewModel from) {
        return lab.sides().stream().filter(other -> other != from).findFirst();
    }

    /** The data field as the bytes it stands for, for the preview. */
    public String preview() {
        try {
            byte[] bytes = hexData.get() ? TrafficRequest.parseHex(data.get()) : TrafficRequest.parseText(data.get());
            return UiText.format("traffic.bytes", bytes.length, new String(bytes, StandardCharsets.ISO_8859_1).replace('\0', '.'));
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    public ObjectProperty<SideViewModel> sideProperty() {
        return side;
    }

    public ObjectProperty<WrOpcode> opcodeProperty() {
        return opcode;
    }

    public StringProperty wrIdProperty() {
        return wrId;
    }

    public StringProperty localOffsetProperty() {
        return localOffset;
    }

    public StringProperty lengthProperty() {
        return length;
    }

    public StringProperty remoteOffsetProperty() {
        return remoteOffset;
    }

    /** True when the data field is hex, false for text (with \0, \n and \xHH escapes). */
    public BooleanProperty hexDataProperty() {
        return hexData;
    }

    public StringProperty dataProperty() {
        return data;
    }

    public StringProperty immProperty() {
        return imm;
    }

    public BooleanProperty signaledProperty() {
        return signaled;
    }

    public StringProperty compareAddProperty() {
        return compareAdd;
    }

    public StringProperty swapProperty() {
        return swap;
    }

    public StringProperty receiveWrIdProperty() {
        return receiveWrId;
    }

    public StringProperty receiveOffsetProperty() {
        return receiveOffset;
    }

    public StringProperty receiveLengthProperty() {
        return receiveLength;
    }

    /** What the last post did, in one line. */
    public ReadOnlyStringProperty outcomeProperty() {
        return outcome.getReadOnlyProperty();
    }
}
