package dev.onceflow.conformance.selftest;

import dev.onceflow.connector.filesystem.FileTransaction;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.ForwardingTransactionalWriter;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Breaks 2PC-7 the way it shows in a database sink: abortLingering() does nothing, and the
 * in-progress files of earlier attempts block this attempt's first write for as long as they
 * exist, as the row locks of a prepared transaction block the replayed rows. The filesystem sink
 * has no locks, so this stands in for them. A restarted job hangs instead of failing, and the
 * suite must still name 2PC-7 and what was left behind.
 */
public final class LockedByLingeringSinkFactory extends BrokenSinkFactory {

    public static final String IDENTIFIER = "broken-locked-by-lingering";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    protected TransactionalWriter<Event, FileTransaction> breakWriter(TransactionalWriter<Event, FileTransaction> real,
            SinkContext context, Path output) {
        return new ForwardingTransactionalWriter<>(real) {
            private boolean lockFree;

            @Override
            public void write(FileTransaction transaction, Event record) throws Exception {
                if (!lockFree) {
                    awaitNoLingeringFile(output, context.attemptId());
                    lockFree = true;
                }
                real.write(transaction, record);
            }

            @Override
            public void abortLingering() {
            }
        };
    }

    /**
     * Waits until the directory holds no in-progress file of another attempt. Assumes the sink's
     * default names (no compression extension), which end in {@code -<attempt id>.inprogress}.
     */
    private static void awaitNoLingeringFile(Path directory, String attemptId) throws IOException, InterruptedException {
        String ours = "-" + attemptId + ".inprogress";
        while (true) {
            try (Stream<Path> files = Files.list(directory)) {
                if (files.map(file -> file.getFileName().toString())
                        .noneMatch(name -> name.endsWith(".inprogress") && !name.endsWith(ours))) {
                    return;
                }
            }
            Thread.sleep(50);
        }
    }
}
