package com.example.recordfiles;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.spi.sink.IdempotentWriter;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the records of one parallel subtask, on its task thread. Subtasks never write the same
 * file: a record's id, hence its file, belongs to one record.
 */
final class RecordFilesWriter implements IdempotentWriter<Event> {

    private final Path directory;
    private final String suffix;
    private final boolean fsync;
    /** Files written since the last barrier, forced to disk at the next one when {@code fsync} is set. */
    private final List<Path> unsynced = new ArrayList<>();

    RecordFilesWriter(Path directory, String suffix, boolean fsync) throws IOException {
        this.directory = Files.createDirectories(directory);
        this.suffix = suffix;
        this.fsync = fsync;
    }

    /**
     * IDEM-1: the file's name comes from the record's id alone, and writing replaces its content, so
     * a replayed record leaves what its first write left. A write cut short by a crash is repaired by
     * the same replay: the record was not covered by a completed checkpoint, so it comes again.
     */
    @Override
    public void write(Event record) throws IOException {
        Path file = directory.resolve(URLEncoder.encode(record.id(), StandardCharsets.UTF_8) + suffix);
        // The line ends with '\n': a reader tells a complete file from one a crash cut short.
        Files.writeString(file, EventFormat.toLine(record) + '\n', StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        if (fsync) {
            unsynced.add(file);
        }
    }

    /**
     * IDEM-2: every record written is already in its file, which survives the job's process; with
     * {@code fsync} the files also reach the disk before the barrier moves on.
     */
    @Override
    public void flush() throws IOException {
        for (Path file : unsynced) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.force(false);
            }
        }
        unsynced.clear();
    }

    @Override
    public void close() {
        // Nothing open between writes.
    }
}
