package org.rdmalab.bench;

/** A benchmark could not run or finish; the message is one line for the user, saying what to do. */
public class BenchException extends Exception {

    private static final long serialVersionUID = 1L;

    public BenchException(String message) {
        super(message);
    }

    public BenchException(String message, Throwable cause) {
        super(message, cause);
    }
}
