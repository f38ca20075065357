package org.rdmalab.ibverbs;

/** The stand-in's own test hook: how many objects it has created and not yet destroyed. */
public interface StandInControl {

    /** {@code int standin_live_objects(void)}. */
    int standin_live_objects();
}
