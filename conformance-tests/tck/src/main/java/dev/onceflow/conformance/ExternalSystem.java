package dev.onceflow.conformance;

/**
 * The real system a connector talks to (a Kafka broker, a PostgreSQL server, a directory), as the
 * suite needs it. The suite calls {@link #start()} once before the first case of a test class and
 * {@link #close()} after the last; each case gets its own {@link TestDestination}.
 */
public interface ExternalSystem extends AutoCloseable {

    /** Starts the system or connects to it. It must fail, never skip, when the system is unreachable. */
    void start() throws Exception;

    /**
     * Names this configuration of the connector when one module tests several (a sink's modes):
     * the report is {@code <identifier>-<variant>}, so each gets its own row in the guarantees
     * matrix. Empty by default.
     */
    default String variant() {
        return "";
    }

    /** Stops what {@link #start()} started. */
    @Override
    void close() throws Exception;
}
