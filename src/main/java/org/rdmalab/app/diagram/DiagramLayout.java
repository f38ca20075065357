package org.rdmalab.app.diagram;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpTransitions;
import org.rdmalab.verbs.QpType;

/**
 * Where each state sits and how each arrow runs, derived from {@link QpTransitions} by one rule,
 * in grid units (the skin turns them into pixels).
 *
 * <ul>
 *   <li><b>Hubs</b> are the states that (nearly) every other state can move to: in-degree of at
 *       least the number of other states minus one. For the verbs table these are RESET and ERR.
 *       RESET is also the <b>start</b>, the state a new QP is created in; the other hubs are
 *       <b>sinks</b>.</li>
 *   <li>The <b>chain</b> runs on row 0 from the start, following the one forward arrow to a
 *       non-hub state as long as there is exactly one and it has no arrow back (RESET, INIT, RTR,
 *       RTS).</li>
 *   <li><b>Side</b> states (the other non-hubs: SQD, SQE) sit on row 1 next to the chain state they
 *       are connected to, the first under it, the next one column inwards.</li>
 *   <li><b>Sinks</b> (ERR) take the leftmost free cells of row 1, below the start.</li>
 * </ul>
 *
 * Arrows between non-hubs are straight. Arrows into a hub run along shared lanes ("rails") so
 * that the many "any state → ERR / RESET" arrows form bundles instead of a hairball: into the start
 * along the top rail, from the chain into a sink along the middle lane, from the side row into a
 * sink along the bottom lane, from the side row into the start around the outside. Self-loops
 * (INIT → INIT, RTS → RTS, ...) change attributes, not the state, and are not drawn.
 */
final class DiagramLayout {

    /** The state a new QP is created in ({@code ibv_create_qp} leaves it in RESET). */
    static final QpState START = QpState.RESET;

    /** The states drawn: every {@code ibv_qp_state} but UNKNOWN. */
    static final List<QpState> STATES = List.of(QpState.RESET, QpState.INIT, QpState.RTR, QpState.RTS,
            QpState.SQD, QpState.SQE, QpState.ERR);

    /** A grid cell. */
    record Cell(int column, int row) {
    }

    /** How an arrow is routed. */
    enum Route {
        /** A straight line between the two boxes (offset sideways when the reverse arrow exists). */
        STRAIGHT,
        /** Up from a chain state to the top rail, along it, down into the start. */
        TOP_RAIL,
        /** Down from a chain state to the lane between the rows, along it, down into a sink. */
        MIDDLE_LANE,
        /** Down from a side state to the bottom lane, along it, up into a sink. */
        BOTTOM_LANE,
        /** Down from a side state, along the outer bottom lane to the nearer edge, up, along the top rail into the start. */
        AROUND
    }

    /** One arrow of the table. */
    record Edge(QpState from, QpState to, Route route, boolean hasReverse) {
    }

    private final QpType type;
    private final Map<QpState, Cell> cells = new EnumMap<>(QpState.class);
    private final List<Edge> edges = new ArrayList<>();
    private final Set<QpState> hubs = EnumSet.noneOf(QpState.class);
    private int columns;
    private int rows;

    private DiagramLayout(QpType type) {
        this.type = type;
    }

    /** The layout for a QP type; a type without a table gets the states and no arrows. */
    static DiagramLayout of(QpType type) {
        DiagramLayout layout = new DiagramLayout(type);
        layout.compute();
        return layout;
    }

    /** True when {@code from → to} is a transition of the table (self-loops included). */
    static boolean isTransition(QpType type, QpState from, QpState to) {
        try {
            return QpTransitions.rule(type, from, to) != null;
        } catch (IllegalArgumentException noTable) {
            return false;
        }
    }

    private void compute() {
        Map<QpState, Set<QpState>> out = new EnumMap<>(QpState.class);
        Map<QpState, Integer> inDegree = new EnumMap<>(QpState.class);
        for (QpState from : STATES) {
            out.put(from, EnumSet.noneOf(QpState.class));
            inDegree.put(from, 0);
        }
        for (QpState from : STATES) {
            for (QpState to : STATES) {
                if (from != to && isTransition(type, from, to)) {
                    out.get(from).add(to);
                    inDegree.merge(to, 1, Integer::sum);
                }
            }
        }
        for (QpState state : STATES) {
            if (inDegree.get(state) >= STATES.size() - 2) {
                hubs.add(state);
            }
        }
        hubs.add(START);

        List<QpState> chain = new ArrayList<>(List.of(START));
        QpState current = START;
        while (true) {
            List<QpState> forward = new ArrayList<>();
            for (QpState next : out.get(current)) {
                if (!hubs.contains(next) && !chain.contains(next)) {
                    forward.add(next);
                }
            }
            if (forward.size() != 1) {
                break;
            }
            QpState next = forward.get(0);
            if (!hubs.contains(current) && out.get(next).contains(current)) {
                break;
            }
            chain.add(next);
            current = next;
        }
        for (int i = 0; i < chain.size(); i++) {
            cells.put(chain.get(i), new Cell(i, 0));
        }
        columns = chain.size();
        rows = 1;

        Set<Integer> takenOnRow1 = new java.util.HashSet<>();
        for (QpState side : STATES) {
            if (cells.containsKey(side) || hubs.contains(side)) {
                continue;
            }
            int anchor = columns - 1;
            for (int i = chain.size() - 1; i >= 0; i--) {
                QpState c = chain.get(i);
                if (out.get(c).contains(side) || out.get(side).contains(c)) {
                    anchor = i;
                    break;
                }
            }
            int column = freeColumnNear(anchor, takenOnRow1);
            takenOnRow1.add(column);
            cells.put(side, new Cell(column, 1));
            rows = 2;
        }
        for (QpState sink : STATES) {
            if (cells.containsKey(sink)) {
                continue;
            }
            int column = 0;
            while (takenOnRow1.contains(column)) {
                column++;
            }
            takenOnRow1.add(column);
            columns = Math.max(columns, column + 1);
            cells.put(sink, new Cell(column, 1));
            rows = 2;
        }

        for (QpState from : STATES) {
            for (QpState to : out.get(from)) {
                edges.add(new Edge(from, to, route(from, to), out.get(to).contains(from)));
            }
        }
    }

    private int freeColumnNear(int anchor, Set<Integer> taken) {
        for (int distance = 0; ; distance++) {
            int inward = anchor - distance;
            if (inward >= 0 && !taken.contains(inward)) {
                return inward;
            }
            int outward = anchor + distance;
            if (distance > 0 && outward < columns && !taken.contains(outward)) {
                return outward;
            }
            if (inward < 0 && outward >= columns) {
                columns++;
                return columns - 1;
            }
        }
    }

    private Route route(QpState from, QpState to) {
        boolean fromHub = hubs.contains(from);
        boolean toHub = hubs.contains(to);
        if (!toHub || fromHub) {
            return Route.STRAIGHT;
        }
        int fromRow = cells.get(from).row();
        if (to == START) {
            return fromRow == 0 ? Route.TOP_RAIL : Route.AROUND;
        }
        return fromRow == 0 ? Route.MIDDLE_LANE : Route.BOTTOM_LANE;
    }

    QpType type() {
        return type;
    }

    Cell cell(QpState state) {
        return cells.get(state);
    }

    List<Edge> edges() {
        return edges;
    }

    boolean isHub(QpState state) {
        return hubs.contains(state);
    }

    int columns() {
        return columns;
    }

    int rows() {
        return rows;
    }
}
