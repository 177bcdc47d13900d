package dev.onceflow.spi.factory;

import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.record.EventSerializer;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.source.ReplayableSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Makes a source usable from a job file by name. Found with {@link java.util.ServiceLoader}: a
 * connector jar lists its factory in
 * {@code META-INF/services/dev.onceflow.spi.factory.SourceFactory}.
 *
 * <p>Called on the CLI's main thread, before the job starts (to validate) and once to create the
 * source. Must not keep a connection: connections belong to readers. {@link #createSource} never
 * connects; {@link #createRowSource} may connect once, briefly, to read what the rows' schema
 * comes from or to check the external system (as {@code postgres-cdc} reads a table's columns), so
 * a job that cannot run is refused before it starts.
 */
public interface SourceFactory {

    /** The name job files use, such as {@code "kafka"} or {@code "file"}; lower case, unique. */
    String identifier();

    /** One sentence for {@code --help} and the docs. */
    String description();

    /**
     * Every option the source accepts from a job file that declares no schema. Anything else in a
     * job file is an error.
     */
    List<Option<?>> options();

    /**
     * Every option the source accepts from a job file that declares {@code declaredSchema}: for a
     * source with settings per field, named after the fields (such as {@code fields.<name>.min}).
     * The runtime validates the job file's options against this list. By default {@link #options()}.
     */
    default List<Option<?>> options(Schema declaredSchema) {
        return options();
    }

    /**
     * The format this source decodes records with when the job file names none, or empty if the
     * source takes no format (it makes its rows itself); a job file that gives a format to such a
     * source is refused.
     */
    default Optional<String> defaultFormat() {
        return Optional.empty();
    }

    /**
     * Whether rows of the source a job file with {@code options} describes can be other than
     * {@code INSERT}s: a changelog (rule CHG-3). The runtime asks before the job runs and refuses a
     * sink that appends. The default, for a source of plain records, is {@code false}.
     */
    default boolean yieldsChanges(OptionValues options) {
        return false;
    }

    /**
     * Creates the source a job file describes, with the schema of every row it yields (ROW-4). The
     * default is the source of {@link #createSource events}, as rows of {@link EventRows#SCHEMA},
     * for a source that takes no format and no declared schema.
     *
     * @throws OptionException with one line naming what does not fit (an option, the format, a
     *     field of the declared schema); the job does not start
     */
    default RowSource<?> createRowSource(Context context) {
        String owner = "source '" + identifier() + "'";
        context.declaredSchema().ifPresent(schema -> {
            if (!schema.equals(EventRows.SCHEMA)) {
                throw new OptionException(owner + " yields events, rows of " + EventRows.SCHEMA
                        + "; remove the job file's schema");
            }
        });
        return new RowSource<>(EventRows.SCHEMA, createSource(context.options()), EventRows::toRow,
                EventSerializer.INSTANCE);
    }

    /**
     * Creates the source of events from validated options: for Java programs and the Flink
     * bridge's conformance runner, which build jobs of {@link Event}s.
     */
    ReplayableSource<Event, ?, ?> createSource(OptionValues options);

    /**
     * What the runtime knows of the source when it asks the factory for it. Implemented by the
     * runtime; it may grow new methods.
     */
    interface Context {

        /** The connector's options, validated against {@link #options()}. */
        OptionValues options();

        /**
         * The job's name, stable across restarts: for a source that names things it keeps in an
         * external system (a replication slot) after the job. A context that knows no job (a
         * test's) answers {@code "job"}.
         */
        default String jobName() {
            return "job";
        }

        /**
         * The source operator's uid, stable across restarts and job changes. A context that knows
         * no job answers {@code "source"}, the uid a job file's source gets when it names none.
         */
        default String sourceUid() {
            return "source";
        }

        /** The schema the job file declares for this source's rows, if it declares one. */
        Optional<Schema> declaredSchema();

        /**
         * The format the job file chose (or {@link #defaultFormat()}), its options validated; empty if
         * the source takes none.
         */
        Optional<Format> format();

        /**
         * Another format than {@link #format()}, by name, for a source that decodes a second part of
         * each record in a format of its own, such as a Kafka record's key.
         *
         * <p><b>Caller and thread.</b> The factory, from {@link #createRowSource}, on the CLI's main
         * thread before the job starts; never a reader. The factory then makes its decoders from the
         * returned {@link Format}, which is immutable and may be handed to readers on other threads.
         *
         * <p><b>What the caller may assume.</b> The format is found as the job file's own is (every
         * format on the classpath and in plugins) and its options are validated as the job file's
         * format options are; the schema is not checked here: the caller checks it, as FMT-4 says, by
         * calling {@link Format#createDecoder} before it returns. The default, for a context that
         * knows no formats (a test's), refuses.
         *
         * @param identifier a format's name, such as {@code "json"}
         * @param options the format's options as a job file writes them, empty for its defaults
         * @param owner how errors name what asked for the format, such as
         *     {@code "source 'kafka' key-format"}
         * @throws OptionException with one line naming {@code owner}, if no format has that name or an
         *     option is unknown or invalid
         */
        default Format format(String identifier, Map<String, String> options, String owner) {
            throw new OptionException(owner + ": no format '" + identifier + "' is known here");
        }

        /**
         * Whether the job file asks for events as jobs read them before rows: the {@code event}
         * format and no declared schema. A source that also reads events then serves the default
         * {@link #createRowSource} unchanged, so such job files read exactly as before.
         */
        default boolean wantsEvents() {
            return format().map(f -> f.identifier().equals("event")).orElse(false) && declaredSchema().isEmpty();
        }
    }
}
