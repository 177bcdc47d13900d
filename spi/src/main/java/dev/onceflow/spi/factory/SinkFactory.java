package dev.onceflow.spi.factory;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.Sink;
import java.util.List;

/**
 * Makes a sink usable from a job file by name. Found with {@link java.util.ServiceLoader}: a
 * connector jar lists its factory in {@code META-INF/services/dev.onceflow.spi.factory.SinkFactory}.
 *
 * <p>Called on the CLI's main thread, before the job starts. Must not connect anywhere in
 * {@link #createSink}: connections belong to writers.
 */
public interface SinkFactory {

    /** The name job files use, such as {@code "jdbc"} or {@code "filesystem"}; lower case, unique. */
    String identifier();

    /** One sentence for {@code --help} and the docs. */
    String description();

    /** Every option the sink accepts. Anything else in a job file is an error. */
    List<Option<?>> options();

    /** Creates the sink from validated options. */
    Sink<Event> createSink(OptionValues options);
}
