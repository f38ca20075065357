package org.rdmalab.app.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** How the Step tab shares its split between the parameters and the C code ({@link StepView#sheetHeight}). */
class StepViewSplitTest {

    @Test
    void theParametersGetAllTheyWantWhileTheCodeKeepsItsMinimum() {
        // A room of 218 px and a code pane of at least 80 px: 138 px are the parameters' to take.
        assertEquals(137, StepView.sheetHeight(137, 218, 80));
        assertEquals(138, StepView.sheetHeight(138, 218, 80), "exactly the code's minimum left");
        assertEquals(17, StepView.sheetHeight(17, 218, 80), "a short sheet takes only its rows");
    }

    @Test
    void aSheetThatCannotFitScrollsInHalfTheRoom() {
        assertEquals(109, StepView.sheetHeight(139, 218, 80), "one pixel over: half the room");
        assertEquals(109, StepView.sheetHeight(400, 218, 80));
    }

    @Test
    void halfTheRoomNeverTakesTheCodesMinimum() {
        // A low window: half of 150 would leave the code 75 px of its 90.
        assertEquals(60, StepView.sheetHeight(400, 150, 90));
        assertEquals(0, StepView.sheetHeight(400, 70, 90), "no room at all: the code keeps what there is");
    }
}
