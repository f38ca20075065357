package org.rdmalab.lab.scenario;

import java.time.Duration;
import java.util.Objects;

/**
 * What a scenario's traffic works with once the sides' steps ran: the two sides, the settings,
 * its notes and its checks, all reported to one listener.
 */
public final class ScenarioRun {

    private final ScenarioSide server;
    private final ScenarioSide client;
    private final LoopbackSettings settings;
    private final ScenarioListener listener;

    ScenarioRun(ScenarioSide server, ScenarioSide client, LoopbackSettings settings, ScenarioListener listener) {
        this.server = Objects.requireNonNull(server);
        this.client = client;
        this.settings = Objects.requireNonNull(settings);
        this.listener = Objects.requireNonNull(listener);
    }

    /** The passive side. */
    public ScenarioSide server() {
        return server;
    }

    /**
     * The active side.
     *
     * @throws IllegalStateException for a scenario on the server alone
     */
    public ScenarioSide client() {
        if (client == null) {
            throw new IllegalStateException("this scenario has no client");
        }
        return client;
    }

    /** The settings. */
    public LoopbackSettings settings() {
        return settings;
    }

    /** The seed's CQ poll timeout, or what the user chose. */
    public Duration pollTimeout() {
        return settings.pollTimeout();
    }

    /** Reports an explanation. */
    public void note(String text) {
        listener.onEvent(new ScenarioEvent.Note(text));
    }

    /** A fresh set of checks reporting to this run's listener. */
    public Checks checks() {
        return new Checks(listener);
    }
}
