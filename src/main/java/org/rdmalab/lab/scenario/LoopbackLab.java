package org.rdmalab.lab.scenario;

import java.util.List;
import java.util.Objects;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;

/**
 * Runs scenarios for {@code loopback}: builds the scenario's two lab sessions
 * ({@link ScenarioSessions}), runs their steps, posts the scenario's traffic and checks it, and
 * afterwards reports each device's counters and tears everything down, whatever happened.
 */
public final class LoopbackLab {

    private final Backends backends;
    private final LoopbackSettings settings;
    private final ScenarioListener listener;
    private boolean reportPackets;

    /** A lab that finds its devices in {@code backends} and reports to {@code listener}. */
    public LoopbackLab(Backends backends, LoopbackSettings settings, ScenarioListener listener) {
        this.backends = Objects.requireNonNull(backends, "backends");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** When on, every packet the devices see is reported (from the devices' threads). */
    public LoopbackLab reportPackets(boolean on) {
        reportPackets = on;
        return this;
    }

    /** The settings. */
    public LoopbackSettings settings() {
        return settings;
    }

    /**
     * Runs {@code scenario}; afterwards reports the counters of every device it opened and closes
     * them all. A step or verb failing where the scenario did not expect it ends the run "not as
     * expected".
     */
    public ScenarioResult run(Scenario scenario) {
        ScenarioSessions sessions = ScenarioSessions.of(scenario, backends, settings, listener, reportPackets);
        try {
            sessions.runSteps();
            return scenario.traffic(sessions.run());
        } catch (VerbsException | ScenarioSessions.StepFailed e) {
            return ScenarioResult.unexpected("a verb failed where the scenario did not expect it",
                    List.of(e.getMessage()));
        } finally {
            sessions.reportCounters();
            sessions.close();
        }
    }

    /**
     * Looks both devices up without opening them, so bad options (an unknown device, a fault spec
     * the device refuses) are reported before anything runs.
     *
     * @throws VerbsException ENODEV when the device does not exist
     * @throws IllegalArgumentException when the device refuses its options
     */
    public void findDevices() throws VerbsException {
        backends.find(settings.deviceName(PeerRole.SERVER), settings.server());
        backends.find(settings.deviceName(PeerRole.CLIENT), settings.client());
    }
}
