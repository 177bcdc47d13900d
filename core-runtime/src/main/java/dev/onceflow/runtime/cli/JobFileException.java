package dev.onceflow.runtime.cli;

/** A job file is unreadable or invalid. The message is one line, printed as it is. */
public class JobFileException extends Exception {

    private static final long serialVersionUID = 1L;

    public JobFileException(String message) {
        super(message);
    }
}
