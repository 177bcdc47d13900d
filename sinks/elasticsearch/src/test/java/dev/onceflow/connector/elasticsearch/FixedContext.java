package dev.onceflow.connector.elasticsearch;

import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.row.Schema;
import java.util.Optional;

/** What the runtime tells the factory for a job file whose sink has no format:. */
record FixedContext(OptionValues options, Schema inputSchema) implements SinkFactory.Context {

    @Override
    public Optional<Format> format() {
        return Optional.empty();
    }
}
