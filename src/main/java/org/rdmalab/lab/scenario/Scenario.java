package org.rdmalab.lab.scenario;

import org.rdmalab.verbs.VerbsException;

/** One loopback case: what it is called, what it shows, and how it drives the two peers. */
public interface Scenario {

    /** The name given to {@code --scenario} ({@code seed}, {@code bad-rkey}). */
    String name();

    /** One line saying what happens and what the student should see. */
    String description();

    /**
     * Runs the case on {@code lab}'s devices. Peers opened through the lab are torn down by the
     * lab, on every path.
     *
     * @return whether the device did what the case teaches, and why not
     * @throws VerbsException a verb failed where the case did not expect it
     */
    ScenarioResult run(LoopbackLab lab) throws VerbsException;
}
