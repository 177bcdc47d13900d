package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.util.List;

/** What the runtime does between two barriers, and what a committed reader should then see. */
final class WriterCalls {

    private WriterCalls() {
    }

    /** Begins the transaction of {@code checkpointId}, writes {@code events} and pre-commits it. */
    static FileTransaction writeAndPreCommit(TransactionalWriter<Event, FileTransaction> writer, long checkpointId,
            List<Event> events) throws Exception {
        FileTransaction open = writer.beginTransaction(checkpointId);
        for (Event event : events) {
            writer.write(open, event);
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
