package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.util.List;

/** What the runtime does between two barriers, and what a committed reader should then see. */
final class WriterCalls {

    private WriterCalls() {
    }

    /** Begins the transaction of {@code checkpointId}, writes {@code records} and pre-commits it. */
    static <T> FileTransaction writeAndPreCommit(TransactionalWriter<T, FileTransaction> writer, long checkpointId,
            List<T> records) throws Exception {
        FileTransaction open = writer.beginTransaction(checkpointId);
        for (T record : records) {
            writer.write(open, record);
        }
        return writer.preCommit(open);
    }

    /** The text of part files holding {@code events}, in order. */
    static String lines(List<Event> events) {
        StringBuilder text = new StringBuilder();
        events.forEach(e -> text.append(EventFormat.toLine(e)).append('\n'));
        return text.toString();
    }
}
