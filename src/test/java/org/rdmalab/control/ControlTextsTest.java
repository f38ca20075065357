package org.rdmalab.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.control.lab.MessageType;
import org.rdmalab.control.lab.StepStatus;

/** What the control layer says about itself: the protocols' names and what each carries, and open codes. */
class ControlTextsTest {

    @Test
    void eachProtocolIsNamedAsDemoProtocolTakesItAndSaysWhatItCarries() {
        assertEquals(List.of("seed", "lab", "pingpong"), java.util.Arrays.stream(ControlProtocol.values())
                .map(ControlProtocol::cliName).toList());
        assertEquals("pingpong", ControlProtocol.PINGPONG.toString());
        assertEquals("addr, rkey, QPN, LID, GID; PSN 0, length 11, MTU 256 assumed", ControlProtocol.SEED.carries());
        assertEquals("every field", ControlProtocol.LAB.carries());
        assertEquals("LID, QPN, PSN, GID; no remote buffer, length 4096, MTU 1024 assumed",
                ControlProtocol.PINGPONG.carries());
        assertEquals(ControlProtocol.PINGPONG, ControlProtocol.parse(" PingPong "));
    }

    @Test
    void aStepStatusIsEightBitsAndCodesOfDifferentKindsDiffer() {
        assertEquals("UNKNOWN(0x00)", StepStatus.of(0).name());
        assertEquals(255, StepStatus.of(255).code());
        assertEquals("a step status is 8 bits, not 256",
                assertThrows(IllegalArgumentException.class, () -> StepStatus.of(256)).getMessage());
        assertEquals("a step status is 8 bits, not -1",
                assertThrows(IllegalArgumentException.class, () -> StepStatus.of(-1)).getMessage());
        assertEquals(StepStatus.STARTED, StepStatus.of(1));
        assertNotEquals((Object) StepStatus.STARTED, MessageType.HELLO, "status 1 is not message type 1");
        assertNotEquals(StepStatus.STARTED, StepStatus.SUCCEEDED);
    }
}
