package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TransitionCommandTest {

    @Test
    void theSeedsInitTransitionIsValid() {
        CliRunner.Result result = CliRunner.run("transition", "--qp-type", "RC", "--from", "RESET", "--to", "INIT",
                "--mask", "STATE,PKEY_INDEX,PORT,ACCESS_FLAGS");
        assertEquals(0, result.exitCode());
        assertEquals("valid", result.out().lines().findFirst().orElseThrow());
    }

    @Test
    void hexMaskForRtrIsValid() {
        CliRunner.Result result = CliRunner.run("transition", "--from", "INIT", "--to", "RTR", "--mask", "0x129181");
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().startsWith("valid\n"));
    }

    @Test
    void missingAndNotAllowedAttributesAreListed() {
        CliRunner.Result result = CliRunner.run("transition", "--from", "INIT", "--to", "RTR",
                "--mask", "STATE,AV,PATH_MTU,MAX_DEST_RD_ATOMIC,MIN_RNR_TIMER,TIMEOUT");
        assertEquals(1, result.exitCode());
        assertEquals("invalid\nmissing: RQ_PSN, DEST_QPN\nnot allowed: TIMEOUT\n", result.out());
    }

    @Test
    void initToRtsIsNotATransition() {
        CliRunner.Result result = CliRunner.run("transition", "--from", "INIT", "--to", "RTS", "--mask", "STATE");
        assertEquals(1, result.exitCode());
        assertTrue(result.out().contains("INIT → RTS is not a transition"), result.out());
    }

    @Test
    void unknownNamesAreUsageErrorsThatListTheValidOnes() {
        CliRunner.Result state = CliRunner.run("transition", "--from", "READY", "--to", "RTS", "--mask", "STATE");
        assertEquals(2, state.exitCode());
        assertTrue(state.err().contains("unknown QP state 'READY'; valid states: RESET, INIT, RTR, RTS"), state.err());
        CliRunner.Result mask = CliRunner.run("transition", "--from", "INIT", "--to", "RTR", "--mask", "STATE,MTU");
        assertEquals(2, mask.exitCode());
        assertTrue(mask.err().contains("unknown name 'MTU'; valid names: STATE"), mask.err());
        assertFalse(mask.err().contains("Exception"), mask.err());
    }

    @Test
    void unknownCommandPrintsUsage() {
        CliRunner.Result result = CliRunner.run("frobnicate");
        assertEquals(2, result.exitCode());
        assertTrue(result.err().contains("Unmatched argument at index 0: 'frobnicate'"), result.err());
        assertTrue(result.err().contains("Usage: rdma-lab"), result.err());
        assertFalse(result.err().contains("at org."), "no stack trace");
    }
}
