package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/** Running steps again from one that ran, keeping what the steps before it created. */
class RewindTest {

    @Test
    void aRewoundStepRunsAgainOnWhatTheStepsBeforeItCreated() {
        List<LabSession> sessions = LabSetup.loopback()
                .withBase(DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort())).open(Backends.installed());
        try {
            LabSession server = sessions.get(0);
            assertThrows(IllegalArgumentException.class, () -> server.rewindTo(1), "step 1 has not run");
            assertThrows(IllegalArgumentException.class, () -> server.rewindTo(-1));
            server.rewindTo(0);
            for (int i = 0; i < 4; i++) {
                assertTrue(server.runNext().orElseThrow().ok());
            }
            var pd = server.resources().protectionDomain().orElseThrow();
            assertThrows(IllegalArgumentException.class, () -> server.rewindTo(5), "step 5 is beyond the next one");
            server.rewindTo(3);
            assertEquals("create-cq", server.nextStep().orElseThrow().id());
            assertEquals(Step.Status.PENDING, server.steps().get(3).status());
            assertEquals(Step.Status.DONE, server.steps().get(2).status());
            assertTrue(server.runNext().orElseThrow().ok());
            assertSame(pd, server.resources().protectionDomain().orElseThrow(), "the PD was kept");
            server.rewindTo(4);
            assertEquals("reg-mr", server.nextStep().orElseThrow().id(), "the next step itself may be named");
        } finally {
            sessions.forEach(LabSession::close);
        }
    }
}
