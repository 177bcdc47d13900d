package dev.onceflow.runtime.execution;

/** The job failed and its restart strategy allowed no further attempt. */
public class JobExecutionException extends Exception {

    private static final long serialVersionUID = 1L;

    public JobExecutionException(String message, Throwable cause) {
        super(message, cause);
    }
}
