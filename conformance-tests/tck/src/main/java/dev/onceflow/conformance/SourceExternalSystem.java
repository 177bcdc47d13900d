package dev.onceflow.conformance;

import dev.onceflow.spi.record.Event;
import java.util.List;
import java.util.Map;

/** The fixture of a source under test: how to write input and configure the source to read it. */
public interface SourceExternalSystem extends ExternalSystem {

    /** The source factory's identifier ({@code SourceFactory#identifier()}). */
    String sourceIdentifier();

    /**
     * Job file options that read the case's input. With {@code bounded}, the source must end once
     * it has read what was written before the job started.
     */
    Map<String, Object> sourceOptions(TestDestination destination, boolean bounded) throws Exception;

    /**
     * Writes events as the source will read them back (ids, keys and payloads preserved). Called
     * several times per case; each call should create a new split where the system has such a
     * thing (a new file, a new partition), so the suite can check splits added while running.
     */
    void writeInput(TestDestination destination, List<Event> events) throws Exception;

    /** Whether a running, unbounded source picks up input written after it started. */
    default boolean discoversInputWhileRunning() {
        return true;
    }
}
