package dev.onceflow.runtime.execution;

/**
 * The restore point asked for is older than a checkpoint or savepoint the job completed, or the
 * newest completed one cannot be read: restoring would write again what sinks may already have
 * committed (EO-5). The choice of restore point is the user's input, so the CLI reports it as
 * bad input in one line; its own type keeps it apart from an {@link IllegalArgumentException}
 * that is a bug.
 */
public class DuplicateRiskException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public DuplicateRiskException(String message, Throwable cause) {
        super(message, cause);
    }
}
