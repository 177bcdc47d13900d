package dev.onceflow.runtime.execution;

/**
 * The checkpoint or savepoint to restore does not fit the job: it was taken with another max
 * parallelism, or holds state of operators the job no longer has. The input is wrong, not the
 * runtime, so the CLI reports it as bad input in one line; its own type keeps it apart from an
 * {@link IllegalArgumentException} that is a bug.
 */
public class IncompatibleRestorePointException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public IncompatibleRestorePointException(String message) {
        super(message);
    }
}
