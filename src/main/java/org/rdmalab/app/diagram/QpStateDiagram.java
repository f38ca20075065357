package org.rdmalab.app.diagram;

import java.net.URL;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import javafx.animation.PauseTransition;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableSet;
import javafx.css.PseudoClass;
import javafx.scene.Node;
import javafx.scene.control.Control;
import javafx.scene.control.Skin;
import javafx.util.Duration;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpTransitions;
import org.rdmalab.verbs.QpType;

/**
 * The live state diagram of one queue pair: the seven {@code ibv_qp_state}s as boxes and the
 * transitions of {@link QpTransitions} (the kernel's table for the QP type) as arrows. The current
 * state is filled with its colour token, the arrows leaving it are emphasised; a transition can be
 * animated, a refused one flashes red with its reason. Clicking a state asks the handler set with
 * {@link #setOnStateRequested(Consumer)} for that transition. Style: {@code styles/controls.css},
 * colours from the tokens of {@code styles/rdma-lab.css} (the scene must carry that sheet).
 *
 * <p>Every node has an id for lookups: {@code state-RTS}, {@code arrow-RTR-RTS}; see
 * {@link #stateNode(QpState)} and {@link #arrowNode(QpState, QpState)}. JavaFX thread only.
 */
public class QpStateDiagram extends Control {

    /** Style class of the control. */
    public static final String STYLE_CLASS = "qp-state-diagram";
    /** Style class of a state box; each box also has {@code state-rts} etc. (see {@link #stateStyleClass}). */
    public static final String STATE_CLASS = "qp-state";
    /** Style class of an arrow (a group of {@link #ARROW_LINE_CLASS} and {@link #ARROW_HEAD_CLASS}). */
    public static final String ARROW_CLASS = "qp-arrow";
    /** Style class of an arrow's line. */
    public static final String ARROW_LINE_CLASS = "arrow-line";
    /** Style class of an arrow's head. */
    public static final String ARROW_HEAD_CLASS = "arrow-head";
    /** Added to arrows into RESET or ERR, which run along shared rails and are drawn lighter. */
    public static final String HUB_ARROW_CLASS = "hub-arrow";
    /** Added to an arrow for {@link #REFUSED_FOR} after {@link #refuse}. */
    public static final String REFUSED_CLASS = "refused";
    /** Added to the temporary dashed arrow drawn for a refused move that is not in the table. */
    public static final String PHANTOM_CLASS = "phantom";
    /** Added to an arrow while {@link #animateTransition} runs along it. */
    public static final String ANIMATING_CLASS = "animating";
    /** The dot that travels along an animated arrow. */
    public static final String PULSE_CLASS = "transition-pulse";
    /** The title label. */
    public static final String TITLE_CLASS = "qp-diagram-title";
    /** The QP type badge next to the title. */
    public static final String TYPE_CLASS = "qp-diagram-type";
    /** The note under the diagram. */
    public static final String NOTE_CLASS = "qp-diagram-note";
    /** The reason of the last refusal. */
    public static final String REASON_CLASS = "qp-diagram-reason";
    /** On a state box: it is the current state. */
    public static final PseudoClass CURRENT = PseudoClass.getPseudoClass("current");
    /** On an arrow: it leaves the current state. */
    public static final PseudoClass AVAILABLE = PseudoClass.getPseudoClass("available");
    /** On the control: there is no QP yet (state is null), everything is drawn dim. */
    public static final PseudoClass NO_QP = PseudoClass.getPseudoClass("no-qp");

    /** How long a refused arrow stays red. */
    public static final Duration REFUSED_FOR = Duration.seconds(1.5);
    /** How long a transition animation runs. */
    public static final Duration ANIMATION = Duration.millis(400);

    private static final URL STYLESHEET = QpStateDiagram.class.getResource("/styles/controls.css");

    /** One move between two states. */
    public record Transition(QpState from, QpState to) {
        /** Both states are required. */
        public Transition {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
        }
    }

    private final ObjectProperty<QpType> qpType = new SimpleObjectProperty<>(this, "qpType", QpType.RC);
    private final ObjectProperty<QpState> state = new SimpleObjectProperty<>(this, "state");
    private final StringProperty title = new SimpleStringProperty(this, "title", "");
    private final StringProperty note = new SimpleStringProperty(this, "note", "");
    private final ReadOnlyStringWrapper reason = new ReadOnlyStringWrapper(this, "reason", "");
    private final ObjectProperty<Consumer<QpState>> onStateRequested = new SimpleObjectProperty<>(this,
            "onStateRequested");
    private final ObservableSet<Transition> refused = FXCollections.observableSet();
    private final ObjectProperty<Wording> wording = new SimpleObjectProperty<>(this, "wording", Wording.ENGLISH);
    private final ObservableSet<Transition> refusedView = FXCollections.unmodifiableObservableSet(refused);
    private final Map<Transition, PauseTransition> refusalTimers = new HashMap<>();
    private Consumer<Transition> animationListener;

    /** An RC diagram with no QP yet. */
    public QpStateDiagram() {
        getStyleClass().add(STYLE_CLASS);
        // An author style sheet of this subtree: a user-agent one would replace modena's looked-up
        // colours for everything inside the control (a ListView's cells, for one).
        getStylesheets().add(STYLESHEET.toExternalForm());
        pseudoClassStateChanged(NO_QP, true);
        state.addListener((observable, before, after) -> {
            pseudoClassStateChanged(NO_QP, after == null);
            if (after != null && before != null && after != before) {
                reason.set("");
            }
        });
    }

    /** The QP type whose table draws the arrows (RC by default). */
    public final ObjectProperty<QpType> qpTypeProperty() {
        return qpType;
    }

    public final QpType getQpType() {
        return qpType.get();
    }

    public final void setQpType(QpType value) {
        qpType.set(value);
    }

    /** The current state; null while there is no QP (everything dim). */
    public final ObjectProperty<QpState> stateProperty() {
        return state;
    }

    public final QpState getState() {
        return state.get();
    }

    public final void setState(QpState value) {
        state.set(value);
    }

    /** The line above the diagram, e.g. "Local QP 0x11". */
    public final StringProperty titleProperty() {
        return title;
    }

    public final String getTitle() {
        return title.get();
    }

    public final void setTitle(String value) {
        title.set(value);
    }

    /** A line under the diagram, e.g. what a control protocol does not tell. Empty: no line. */
    public final StringProperty noteProperty() {
        return note;
    }

    public final String getNote() {
        return note.get();
    }

    public final void setNote(String value) {
        note.set(value);
    }

    /**
     * The words of the diagram's tool tips. The control is language-neutral; a window that speaks
     * another language than English sets its own.
     *
     * @param clickToRequest a state's tool tip, under its {@code IBV_QPS_*} name
     * @param required the line of the attribute-mask bits a transition requires
     * @param optional the line of the bits it also accepts
     * @param stateOnly what the required line says when the transition needs only {@code IBV_QP_STATE}
     */
    public record Wording(String clickToRequest, String required, String optional, String stateOnly) {

        /** The diagram's own words. */
        public static final Wording ENGLISH = new Wording("click to request this transition", "required", "optional",
                "STATE only");

        public Wording {
            java.util.Objects.requireNonNull(clickToRequest, "clickToRequest");
            java.util.Objects.requireNonNull(required, "required");
            java.util.Objects.requireNonNull(optional, "optional");
            java.util.Objects.requireNonNull(stateOnly, "stateOnly");
        }
    }

    /** The tool tips' words ({@link Wording#ENGLISH} by default). */
    public final ObjectProperty<Wording> wordingProperty() {
        return wording;
    }

    public final Wording getWording() {
        return wording.get();
    }

    public final void setWording(Wording value) {
        wording.set(value == null ? Wording.ENGLISH : value);
    }

    /** Why the last move was refused; cleared by the next successful transition. */
    public final ReadOnlyStringProperty reasonProperty() {
        return reason.getReadOnlyProperty();
    }

    public final String getReason() {
        return reason.get();
    }

    /** Called with the state a user clicked. */
    public final ObjectProperty<Consumer<QpState>> onStateRequestedProperty() {
        return onStateRequested;
    }

    public final void setOnStateRequested(Consumer<QpState> handler) {
        onStateRequested.set(handler);
    }

    public final Consumer<QpState> getOnStateRequested() {
        return onStateRequested.get();
    }

    /** The moves shown as refused right now (each for {@link #REFUSED_FOR}). */
    public final ObservableSet<Transition> getRefusedTransitions() {
        return refusedView;
    }

    /**
     * Sets the state to {@code to} and runs a short pulse along the arrow {@code from → to}. When
     * that is not an arrow of the table (a self-loop, or a state implied by a control protocol)
     * the state is set without animation. Clears the reason of an earlier refusal.
     */
    public void animateTransition(QpState from, QpState to) {
        Objects.requireNonNull(to, "to");
        reason.set("");
        setState(to);
        if (from != null && from != to && animationListener != null) {
            animationListener.accept(new Transition(from, to));
        }
    }

    /**
     * Shows that {@code from → to} was refused: its arrow turns red for {@link #REFUSED_FOR} (a
     * dashed red arrow is drawn when the table has no such arrow) and {@code reason} shows in the
     * control. The state does not change.
     */
    public void refuse(QpState from, QpState to, String reason) {
        Transition transition = new Transition(from, to);
        this.reason.set(reason == null ? "" : reason);
        PauseTransition timer = refusalTimers.get(transition);
        if (timer == null) {
            timer = new PauseTransition(REFUSED_FOR);
            timer.setOnFinished(done -> {
                refusalTimers.remove(transition);
                refused.remove(transition);
            });
            refusalTimers.put(transition, timer);
        }
        refused.add(transition);
        timer.playFromStart();
    }

    /** True when {@code from → to} (from ≠ to) is an arrow of the current QP type's table. */
    public boolean hasArrow(QpState from, QpState to) {
        return from != to && DiagramLayout.isTransition(getQpType(), from, to);
    }

    /** The box of a state, once the skin is built. */
    public Optional<Node> stateNode(QpState state) {
        return Optional.ofNullable(lookup("#" + stateId(state)));
    }

    /** The arrow {@code from → to} (also a temporary refused one), once the skin is built. */
    public Optional<Node> arrowNode(QpState from, QpState to) {
        return Optional.ofNullable(lookup("#" + arrowId(from, to)));
    }

    /** {@code state-RTS}. */
    public static String stateId(QpState state) {
        return "state-" + state.name();
    }

    /** {@code arrow-RTR-RTS}. */
    public static String arrowId(QpState from, QpState to) {
        return "arrow-" + from.name() + "-" + to.name();
    }

    /** {@code state-rts}: the style class that picks a state's colour token. */
    public static String stateStyleClass(QpState state) {
        return "state-" + state.name().toLowerCase(Locale.ROOT);
    }

    void setAnimationListener(Consumer<Transition> listener) {
        this.animationListener = listener;
    }

    void requestState(QpState requested) {
        Consumer<QpState> handler = getOnStateRequested();
        if (handler != null) {
            handler.accept(requested);
        }
    }

    @Override
    protected Skin<?> createDefaultSkin() {
        return new QpStateDiagramSkin(this);
    }
}
