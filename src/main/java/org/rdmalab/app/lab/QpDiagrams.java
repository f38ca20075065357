package org.rdmalab.app.lab;

import javafx.beans.value.ChangeListener;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.diagram.QpStateDiagram;
import org.rdmalab.verbs.QpState;

/**
 * A side's QP state diagrams: the local QP (clicking a state asks the session for that transition),
 * installed in the side's column, and, with two machines, the peer's QP as the control plane
 * reports or implies it, installed in the column opposite.
 */
public final class QpDiagrams {

    private final SideViewModel side;
    private final QpStateDiagram local = new QpStateDiagram();
    private final QpStateDiagram peer = new QpStateDiagram();

    public QpDiagrams(SideViewModel side) {
        this.side = side;
    }

    void install(VBox box) {
        local.setId(side.name() + "LocalQp");
        local.setWording(wording());
        String owner = UiText.text("side." + side.name() + ".title");
        follow(local, owner + " QP", side.localQpnProperty().get(), side.localStateProperty().get());
        side.localQpnProperty().addListener((observable, before, qpn) -> local.setTitle(title(owner + " QP", qpn.intValue())));
        side.localStateProperty().addListener(stateFollower(local));
        side.lastLocalTransitionProperty().addListener(transitionFollower(local));
        local.setOnStateRequested(this::request);
        local.setNote(UiText.text("diagram.clickAState"));
        VBox.setVgrow(local, Priority.ALWAYS);
        box.getChildren().add(local);
    }

    /** The peer's QP, for the column opposite this side's (two machines). */
    public void installPeer(VBox box) {
        peer.setId("peerQp");
        peer.setWording(wording());
        String peerQp = UiText.text("side.peer.title") + " QP";
        follow(peer, peerQp, side.peerQpnProperty().get(), side.peerStateProperty().get());
        side.peerQpnProperty().addListener((observable, before, qpn) -> peer.setTitle(title(peerQp, qpn.intValue())));
        side.peerStateProperty().addListener(stateFollower(peer));
        side.lastPeerTransitionProperty().addListener(transitionFollower(peer));
        peer.setNote(side.peerStateNote());
        VBox.setVgrow(peer, Priority.ALWAYS);
        box.getChildren().add(peer);
    }

    /** The tool tips' words in the window's language. */
    static QpStateDiagram.Wording wording() {
        return new QpStateDiagram.Wording(UiText.text("diagram.clickToRequest"), UiText.text("diagram.required"),
                UiText.text("diagram.optional"), UiText.text("diagram.stateOnly"));
    }

    private static void follow(QpStateDiagram diagram, String name, int qpn, QpState state) {
        diagram.setTitle(title(name, qpn));
        diagram.setState(state);
    }

    private static String title(String name, int qpn) {
        return qpn < 0 ? UiText.format("diagram.notCreated", name) : String.format("%s 0x%x", name, qpn);
    }

    private static ChangeListener<QpState> stateFollower(QpStateDiagram diagram) {
        return (observable, before, state) -> {
            if (diagram.getState() != state) {
                diagram.setState(state);
            }
        };
    }

    private static ChangeListener<SideViewModel.Transition> transitionFollower(QpStateDiagram diagram) {
        return (observable, before, transition) -> {
            if (transition == null) {
                return;
            }
            if (transition.refused()) {
                diagram.refuse(transition.from(), transition.to(), transition.reason());
            } else {
                diagram.animateTransition(transition.from(), transition.to());
            }
        };
    }

    private void request(QpState target) {
        side.requestState(target);
    }

    QpStateDiagram local() {
        return local;
    }
}
