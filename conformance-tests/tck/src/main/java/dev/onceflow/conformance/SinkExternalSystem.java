package dev.onceflow.conformance;

import dev.onceflow.spi.record.Event;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The fixture of a sink under test: how to configure the sink for a test case and how to read
 * what a committed reader sees.
 */
public interface SinkExternalSystem extends ExternalSystem {

    /** The sink factory's identifier ({@code SinkFactory#identifier()}). */
    String sinkIdentifier();

    /** Job file options that point the sink at a fresh, empty place for this case. */
    Map<String, Object> sinkOptions(TestDestination destination) throws Exception;

    /**
     * The sink's {@code format:} in the job file: a format's name ({@code "parquet"}) or a map of
     * {@code type} and {@code options}; empty for the sink's default format. {@link #readCommitted}
     * reads what it writes.
     */
    default Optional<Object> sinkFormat() {
        return Optional.empty();
    }

    /**
     * Everything a reader that sees only committed data sees in the case's destination (Kafka's
     * {@code read_committed}, a table outside any transaction, visible files), in any order.
     */
    List<Event> readCommitted(TestDestination destination) throws Exception;

    /**
     * What the sink left behind that it should not have: open or prepared transactions,
     * in-progress files, locks. Each entry says what and where. Empty when clean.
     */
    List<String> leftovers(TestDestination destination) throws Exception;
}
