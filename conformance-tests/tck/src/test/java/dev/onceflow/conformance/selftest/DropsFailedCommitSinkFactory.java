package dev.onceflow.conformance.selftest;

import dev.onceflow.connector.filesystem.FileTransaction;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.ForwardingTransactionalWriter;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Breaks EO-3 (and the TransactionalWriter contract "never dropped"): the second non-empty handle
 * committed in each process "fails", and instead of throwing (so the runtime retries or fails the
 * job) the sink deletes the pending file and reports success. Its records are silently lost.
 */
public final class DropsFailedCommitSinkFactory extends BrokenSinkFactory {

    public static final String IDENTIFIER = "broken-drops-failed-commit";

    /** Per process: the suite runs each job in a JVM of its own. */
    private static final AtomicInteger COMMITS = new AtomicInteger();

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    protected TransactionalWriter<Event, FileTransaction> breakWriter(TransactionalWriter<Event, FileTransaction> real,
            SinkContext context, Path output) {
        return new ForwardingTransactionalWriter<>(real) {
            @Override
            public void commit(FileTransaction transaction) throws Exception {
                if (transaction.length() > 0 && COMMITS.incrementAndGet() == 2) {
                    Files.deleteIfExists(partFile(output, transaction.parts().get(0).inProgressPath()));
                    return;
                }
                real.commit(transaction);
            }
        };
    }
}
