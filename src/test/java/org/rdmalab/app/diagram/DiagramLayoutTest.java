package org.rdmalab.app.diagram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rdmalab.app.diagram.DiagramLayout.Cell;
import org.rdmalab.app.diagram.DiagramLayout.Edge;
import org.rdmalab.app.diagram.DiagramLayout.Route;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;

/** The layout rule applied to the verbs table gives the textbook picture, without any FX. */
class DiagramLayoutTest {

    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC", "UD"})
    void theMainChainReadsLeftToRightWithSqdSqeAndErrBelow(QpType type) {
        DiagramLayout layout = DiagramLayout.of(type);
        assertEquals(4, layout.columns());
        assertEquals(2, layout.rows());
        assertEquals(new Cell(0, 0), layout.cell(QpState.RESET));
        assertEquals(new Cell(1, 0), layout.cell(QpState.INIT));
        assertEquals(new Cell(2, 0), layout.cell(QpState.RTR));
        assertEquals(new Cell(3, 0), layout.cell(QpState.RTS));
        assertEquals(new Cell(3, 1), layout.cell(QpState.SQD), "SQD sits under RTS, the state it drains from");
        assertEquals(new Cell(2, 1), layout.cell(QpState.SQE), "SQE next to it");
        assertEquals(new Cell(0, 1), layout.cell(QpState.ERR), "ERR under RESET");
        assertTrue(layout.isHub(QpState.RESET) && layout.isHub(QpState.ERR));
        assertFalse(layout.isHub(QpState.RTS));

        Set<Cell> cells = new HashSet<>();
        for (QpState state : DiagramLayout.STATES) {
            assertTrue(cells.add(layout.cell(state)), "one state per cell: " + state);
        }
    }

    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC", "UD"})
    void arrowsIntoResetAndErrRunOnRailsAndTheRestAreStraight(QpType type) {
        for (Edge edge : DiagramLayout.of(type).edges()) {
            assertNotEquals(edge.from(), edge.to(), "no self-loops");
            boolean intoHub = edge.to() == QpState.RESET || edge.to() == QpState.ERR;
            if (edge.from() == QpState.ERR && edge.to() == QpState.RESET) {
                assertEquals(Route.STRAIGHT, edge.route(), "ERR sits under RESET");
            } else if (intoHub) {
                assertNotEquals(Route.STRAIGHT, edge.route(), edge.toString());
            } else {
                assertEquals(Route.STRAIGHT, edge.route(), edge.toString());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RAW_PACKET", "XRC_SEND"})
    void aTypeWithoutATableGetsItsStatesAndNoArrows(QpType type) {
        DiagramLayout layout = DiagramLayout.of(type);
        assertTrue(layout.edges().isEmpty());
        for (QpState state : DiagramLayout.STATES) {
            assertTrue(layout.cell(state) != null, state.name());
        }
    }
}
