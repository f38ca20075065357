package org.rdmalab.lab.scenario;

/** Receives a scenario's events, on the thread that runs the scenario. */
@FunctionalInterface
public interface ScenarioListener {

    /** Called once per event, in order. */
    void onEvent(ScenarioEvent event);
}
