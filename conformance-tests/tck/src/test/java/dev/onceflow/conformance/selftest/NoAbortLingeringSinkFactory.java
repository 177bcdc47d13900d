package dev.onceflow.conformance.selftest;

import dev.onceflow.connector.filesystem.FileTransaction;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.ForwardingTransactionalWriter;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.nio.file.Path;

/**
 * Breaks 2PC-7: abortLingering() does nothing, so the in-progress file of a transaction that no
 * restored checkpoint knows of stays behind.
 */
public final class NoAbortLingeringSinkFactory extends BrokenSinkFactory {

    public static final String IDENTIFIER = "broken-no-abort-lingering";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    protected TransactionalWriter<Event, FileTransaction> breakWriter(TransactionalWriter<Event, FileTransaction> real,
            SinkContext context, Path output) {
        return new ForwardingTransactionalWriter<>(real) {
            @Override
            public void abortLingering() {
            }
        };
    }
}
