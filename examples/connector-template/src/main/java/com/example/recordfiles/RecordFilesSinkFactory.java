package com.example.recordfiles;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.Sink;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code record-files} sink: one file per record id in a directory, holding the record as one
 * line ({@code id,key,count,payload}). A record written again after a crash overwrites its own
 * file, so the directory holds every record once when the replay has caught up: an
 * {@link IdempotentSink} (IDEM-1, IDEM-2 in Onceflow's {@code docs/spec.md}).
 *
 * <p>The runtime finds this class through {@code META-INF/services/dev.onceflow.spi.factory.SinkFactory}
 * and calls it on the job's main thread while it builds the job, before anything runs.
 */
public final class RecordFilesSinkFactory implements SinkFactory {

    static final Option<String> DIRECTORY = Option.stringOption("directory").required()
            .description("Directory to write the record files to, created if missing.");

    static final Option<String> SUFFIX = Option.stringOption("suffix").defaultValue(".record")
            .validate(suffix -> !suffix.contains("/") && !suffix.contains("\\"), "a file name suffix without '/' or '\\'")
            .description("Ends each file's name, after the record's id.");

    static final Option<Boolean> FSYNC = Option.booleanOption("fsync").defaultValue(false)
            .description("Forces each file to disk at the checkpoint barrier, so that a checkpointed record also "
                    + "survives a machine crash, not only a crash of the job.");

    @Override
    public String identifier() {
        return "record-files";
    }

    @Override
    public String description() {
        return "writes each record to a file named after its id; a replay overwrites (idempotent)";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(DIRECTORY, SUFFIX, FSYNC);
    }

    @Override
    public Sink<Event> createSink(OptionValues options) {
        Path directory = Path.of(options.get(DIRECTORY));
        String suffix = options.get(SUFFIX);
        boolean fsync = options.get(FSYNC);
        return (IdempotentSink<Event>) context -> new RecordFilesWriter(directory, suffix, fsync);
    }
}
