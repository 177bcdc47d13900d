package dev.onceflow.spi.factory;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.source.ReplayableSource;
import java.util.List;

/**
 * Makes a source usable from a job file by name. Found with {@link java.util.ServiceLoader}: a
 * connector jar lists its factory in
 * {@code META-INF/services/dev.onceflow.spi.factory.SourceFactory}.
 *
 * <p>Called on the CLI's main thread, before the job starts (to validate) and once to create the
 * source. Must not connect anywhere in {@link #createSource}: connections belong to readers.
 */
public interface SourceFactory {

    /** The name job files use, such as {@code "kafka"} or {@code "file"}; lower case, unique. */
    String identifier();

    /** One sentence for {@code --help} and the docs. */
    String description();

    /** Every option the source accepts. Anything else in a job file is an error. */
    List<Option<?>> options();

    /** Creates the source from validated options. */
    ReplayableSource<Event, ?, ?> createSource(OptionValues options);
}
