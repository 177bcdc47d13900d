package dev.onceflow.spi.factory;

import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.sink.Sink;
import java.util.List;
import java.util.Optional;

/**
 * Makes a sink usable from a job file by name. Found with {@link java.util.ServiceLoader}: a
 * connector jar lists its factory in {@code META-INF/services/dev.onceflow.spi.factory.SinkFactory}.
 *
 * <p>Called on the CLI's main thread, before the job starts. Must not connect anywhere in
 * {@link #createRowSink} or {@link #createSink}: connections belong to writers.
 */
public interface SinkFactory {

    /** The name job files use, such as {@code "jdbc"} or {@code "filesystem"}; lower case, unique. */
    String identifier();

    /** One sentence for {@code --help} and the docs. */
    String description();

    /** Every option the sink accepts. Anything else in a job file is an error. */
    List<Option<?>> options();

    /**
     * The format this sink encodes records with when the job file names none, or empty if the sink
     * takes no format (it maps fields itself); a job file that gives a format to such a sink is
     * refused.
     */
    default Optional<String> defaultFormat() {
        return Optional.empty();
    }

    /**
     * Whether the sink these options describe applies changes by primary key (CHG-4): writes an
     * {@code INSERT} or {@code UPDATE_AFTER} row as an upsert and deletes a {@code DELETE} row's
     * key. Called by the job-file loader, on its thread, before the job runs, with the validated
     * options; a job whose sink input can carry changes is refused when this is false (CHG-3). The
     * default, false, is right for every sink that appends.
     */
    default boolean acceptsChanges(OptionValues options) {
        return false;
    }

    /**
     * Creates the sink a job file describes, for rows of {@link Context#inputSchema()}, after
     * checking that they fit: ROW-4, a field the sink would not write is an error, never dropped.
     * The default is the sink of {@link #createSink events}, for input rows with exactly the event's
     * fields ({@link EventRows#fromSchema}).
     *
     * @throws OptionException with one line naming what does not fit (an option, the format, a
     *     missing, extra or mistyped field); the job does not start
     */
    default RowSink<?> createRowSink(Context context) {
        return new RowSink<>(createSink(context.options()),
                EventRows.fromSchema(context.inputSchema(), "sink '" + identifier() + "'"));
    }

    /**
     * Creates the sink of events from validated options: for Java programs and the Flink bridge's
     * conformance runner, which build jobs of {@link Event}s.
     */
    Sink<Event> createSink(OptionValues options);

    /**
     * What the runtime knows of the sink when it asks the factory for it. Implemented by the
     * runtime; it may grow new methods.
     */
    interface Context {

        /** The connector's options, validated against {@link #options()}. */
        OptionValues options();

        /** The schema of the rows the sink receives: the source's, as the job's steps changed it. */
        Schema inputSchema();

        /**
         * The format the job file chose (or {@link #defaultFormat()}), its options validated; empty if
         * the sink takes none.
         */
        Optional<Format> format();
    }
}
