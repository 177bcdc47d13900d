package dev.onceflow.conformance.selftest;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.spi.sink.AtLeastOnceSink;
import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.IdempotentWriter;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.spi.sink.SinkContext;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * A sink that appends each record as a line to a file of its own per subtask and attempt, fsynced
 * at every flush, as the Kafka sink's at-least-once mode appends to a topic: a record replayed
 * after a crash is a second line. {@link #AT_LEAST_ONCE} builds it as what it is, an
 * {@link AtLeastOnceSink}; {@link #CLAIMS_IDEMPOTENT} builds the same writer as an
 * {@link IdempotentSink}, which breaks IDEM-1. The committed reader is the filesystem sink's
 * ({@code path} holds visible files only).
 */
public abstract class AppendingSinkFactory implements SinkFactory {

    static final Option<String> PATH = Option.stringOption("path").required()
            .description("Directory to append files to, created if missing.");

    @Override
    public String description() {
        return "A sink that appends, for the conformance suite's own tests.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(PATH);
    }

    private final String identifier;
    private final boolean claimsIdempotence;

    AppendingSinkFactory(String identifier, boolean claimsIdempotence) {
        this.identifier = identifier;
        this.claimsIdempotence = claimsIdempotence;
    }

    @Override
    public String identifier() {
        return identifier;
    }

    @Override
    public Sink<Event> createSink(OptionValues options) {
        Path directory = Path.of(options.get(PATH));
        return claimsIdempotence ? (IdempotentSink<Event>) context -> new AppendingWriter(directory, context)
                : (AtLeastOnceSink<Event>) context -> new AppendingWriter(directory, context);
    }

    /** The correct declaration: it promises at-least-once, no more. */
    public static final class AtLeastOnce extends AppendingSinkFactory {
        public static final String IDENTIFIER = "appending-at-least-once";

        public AtLeastOnce() {
            super(IDENTIFIER, false);
        }
    }

    /** Breaks IDEM-1: declares idempotence while it appends. */
    public static final class ClaimsIdempotent extends AppendingSinkFactory {
        public static final String IDENTIFIER = "broken-appending-idempotent";

        public ClaimsIdempotent() {
            super(IDENTIFIER, true);
        }
    }

    /** Appends lines; flush() writes and fsyncs them. Nothing is buffered past a flush. */
    private static final class AppendingWriter implements IdempotentWriter<Event> {
        private final FileChannel file;
        private final StringBuilder buffer = new StringBuilder();

        AppendingWriter(Path directory, SinkContext context) throws IOException {
            Files.createDirectories(directory);
            // A file per attempt: the replay of a new attempt appends beside what the dead one wrote.
            Path path = directory.resolve("part-" + context.subtaskIndex() + "-" + context.attemptId() + ".txt");
            file = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        }

        @Override
        public void write(Event record) {
            buffer.append(EventFormat.toLine(record)).append('\n');
        }

        @Override
        public void flush() throws IOException {
            file.write(StandardCharsets.UTF_8.encode(buffer.toString()));
            file.force(false);
            buffer.setLength(0);
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }
}
