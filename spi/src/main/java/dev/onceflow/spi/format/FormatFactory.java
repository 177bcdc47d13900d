package dev.onceflow.spi.format;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.row.Schema;
import java.util.List;
import java.util.Optional;

/**
 * Makes a record format (json, csv, avro, ...) usable by connectors by name. Found with
 * {@link java.util.ServiceLoader}: a format jar lists its factory in
 * {@code META-INF/services/dev.onceflow.spi.format.FormatFactory}. Rules FMT-1 to FMT-4 in
 * {@code docs/spec.md}.
 *
 * <p><b>Caller and thread.</b> Connector factories, on the CLI's main thread before the job starts
 * (to validate: every problem with the options or the schema is found here, FMT-4), and then in
 * each reader or writer to make its own decoder or encoder. Factories hold no state and are safe
 * to call from any thread.
 */
public interface FormatFactory {

    /** The name job files use, such as {@code "json"}; lower case, unique. */
    String identifier();

    /** One sentence for {@code --help} and the docs. */
    String description();

    /** Every option the format accepts. Anything else is an error. */
    List<Option<?>> options();

    /**
     * The schema this format's options fix by themselves ({@code raw}: one field; {@code event}: the
     * event's four fields; {@code avro} with a schema file), or empty if the job must declare one.
     */
    default Optional<Schema> schema(OptionValues options) {
        return Optional.empty();
    }

    /**
     * Where this format's records may hold line breaks, for line-delimited files (FMT-1). The
     * default, {@link LineBreaks#ANYWHERE}, is right for any format that does not promise more.
     */
    default LineBreaks lineBreaks(OptionValues options) {
        return LineBreaks.ANYWHERE;
    }

    /**
     * A decoder of records into rows of {@code schema}, for one reader.
     *
     * @throws dev.onceflow.spi.factory.OptionException with one line naming the field, if the format
     *     cannot represent a field of {@code schema} (FMT-4)
     */
    RowDecoder createDecoder(Schema schema, OptionValues options);

    /**
     * An encoder of rows of {@code schema} into records, for one writer.
     *
     * @throws dev.onceflow.spi.factory.OptionException with one line naming the field, if the format
     *     cannot represent a field of {@code schema} (FMT-4)
     */
    RowEncoder createEncoder(Schema schema, OptionValues options);
}
