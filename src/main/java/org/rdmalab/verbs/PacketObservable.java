package org.rdmalab.verbs;

import java.util.function.Consumer;

/**
 * Implemented by contexts whose device can report its packets (the software device). Listeners
 * run on the device's transport thread and must return quickly: hand the event to a queue.
 */
public interface PacketObservable {

    /** Starts reporting packets to {@code listener}; closing the handle stops it. */
    AutoCloseable subscribe(Consumer<PacketEvent> listener);
}
