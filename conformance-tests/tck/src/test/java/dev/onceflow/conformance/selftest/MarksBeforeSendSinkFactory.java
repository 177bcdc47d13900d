package dev.onceflow.conformance.selftest;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.spi.record.EventSerializer;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.WriteAheadWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * Breaks WAL-1: a write-ahead sink whose send marks the segment committed before it writes the
 * segment's file. The order is invisible while nothing crashes; a process that dies between the
 * two leaves the mark without the data, and the restored operator skips the segment as sent. The
 * committed reader is the filesystem sink's: the segments are files {@code part-<subtask>-<checkpoint>.txt}
 * in {@code path}, the marks files in {@code path/markers}.
 */
public class MarksBeforeSendSinkFactory implements SinkFactory {

    public static final String IDENTIFIER = "broken-marks-before-send";

    /**
     * Breaks EO-6: the same write-ahead sink with the send before the mark (WAL-1 holds), whose
     * committer never forgets a mark. Marks are keyed by (subtask, checkpoint id) only, and
     * checkpoint ids start again at 1 when the job is started afresh without its checkpoints: the
     * new run finds the earlier run's marks, takes them for its own, and skips its segments.
     */
    public static final class KeepsEarlierRunsMarkers extends MarksBeforeSendSinkFactory {

        public static final String IDENTIFIER = "broken-keeps-earlier-runs-markers";

        public KeepsEarlierRunsMarkers() {
            super(IDENTIFIER, false);
        }
    }

    private final String identifier;
    private final boolean marksFirst;

    public MarksBeforeSendSinkFactory() {
        this(IDENTIFIER, true);
    }

    private MarksBeforeSendSinkFactory(String identifier, boolean marksFirst) {
        this.identifier = identifier;
        this.marksFirst = marksFirst;
    }

    static final Option<String> PATH = Option.stringOption("path").required()
            .description("Directory of the segment files, created if missing.");

    @Override
    public String identifier() {
        return identifier;
    }

    @Override
    public String description() {
        return "A broken write-ahead sink (" + identifier + "), for the conformance suite's own tests.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(PATH);
    }

    @Override
    public Sink<Event> createSink(OptionValues options) {
        Path directory = Path.of(options.get(PATH));
        Path markers = directory.resolve("markers");
        return new GenericWriteAheadSink<>() {
            @Override
            public WriteAheadWriter<Event> createWriter(SinkContext context) throws IOException {
                Files.createDirectories(markers);
                return new WriteAheadWriter<>() {
                    @Override
                    public boolean sendValues(Iterable<Event> values, long checkpointId, long timestamp)
                            throws IOException {
                        return sendValues(values, context.subtaskIndex(), checkpointId, timestamp);
                    }

                    @Override
                    public boolean sendValues(Iterable<Event> values, int subtaskIndex, long checkpointId,
                            long timestamp) throws IOException {
                        if (marksFirst) {
                            mark(markers, subtaskIndex, checkpointId); // the bug: the mark comes first
                        }
                        StringBuilder lines = new StringBuilder();
                        for (Event value : values) {
                            lines.append(EventFormat.toLine(value)).append('\n');
                        }
                        Path hidden = directory.resolve(".part-" + subtaskIndex + "-" + checkpointId + ".tmp");
                        Files.writeString(hidden, lines, StandardCharsets.UTF_8);
                        Files.move(hidden, directory.resolve("part-" + subtaskIndex + "-" + checkpointId + ".txt"),
                                StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                        return true;
                    }

                    @Override
                    public void close() {
                    }
                };
            }

            @Override
            public CheckpointCommitter createCommitter(SinkContext context) {
                return new CheckpointCommitter() {
                    @Override
                    public void open() throws IOException {
                        Files.createDirectories(markers);
                    }

                    @Override
                    public boolean isCheckpointCommitted(int subtaskIndex, long checkpointId) {
                        return Files.exists(markers.resolve(subtaskIndex + "-" + checkpointId));
                    }

                    @Override
                    public void commitCheckpoint(int subtaskIndex, long checkpointId) throws IOException {
                        mark(markers, subtaskIndex, checkpointId);
                    }

                    @Override
                    public void close() {
                    }
                };
            }

            @Override
            public SimpleVersionedSerializer<Event> recordSerializer() {
                return EventSerializer.INSTANCE;
            }
        };
    }

    private static void mark(Path markers, int subtaskIndex, long checkpointId) throws IOException {
        Path marker = markers.resolve(subtaskIndex + "-" + checkpointId);
        if (!Files.exists(marker)) {
            Files.createFile(marker);
        }
    }
}
