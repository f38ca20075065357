package org.rdmalab.lab;

/**
 * Puts one event on a session's listeners as the session's own steps and traffic do, for a test
 * of what a view does with one kind of event alone.
 */
public final class SessionEvents {

    private SessionEvents() {
    }

    /** Hands {@code event} to every listener of {@code session}. */
    public static void emit(LabSession session, LabEvent event) {
        session.emit(event);
    }
}
