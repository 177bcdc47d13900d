package dev.onceflow.spi.format;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;

/**
 * Makes a record format (json, csv, avro, ...) usable by connectors by name. Found with
 * {@link java.util.ServiceLoader}: a format jar lists its factory in
 * {@code META-INF/services/dev.onceflow.spi.format.FormatFactory}. Rules FMT-1 to FMT-4 in
 * {@code docs/spec.md}, FMT-5 for formats that write whole files, FMT-6 for files with a
 * header line, and FMT-7 for reading whole files.
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
     * The header line every file of rows of {@code schema} in this format starts with (a CSV line of
     * the field names), without its line end; empty, the default, where files have none (FMT-6).
     *
     * <p><b>Caller and thread.</b> Connector factories while the job file is validated, and a file
     * sink's writer on its task thread. A file sink writes it and {@code \n} once at the start of
     * each new part file, before the file's first record, so every pre-committed length, and so
     * every file truncated back to one after a crash, still holds it. A file source expects it as
     * the first line of each file and hands that line to {@link #checkFileHeader}, never to a
     * decoder. A connector whose records are not files (Kafka) refuses a format with a header.
     *
     * @throws dev.onceflow.spi.factory.OptionException with one line naming the field, if a name
     *     cannot be written in a header line (FMT-4)
     */
    default byte[] fileHeader(Schema schema, OptionValues options) {
        return new byte[0];
    }

    /**
     * Checks the first line of a file (without its line end) that a file source reads as rows of
     * {@code schema}, where {@link #fileHeader} is not empty (FMT-6). The default accepts only the
     * bytes of {@link #fileHeader}; a format overrides it to accept what its readers take as equal
     * (quoting, a byte order mark).
     *
     * <p><b>Caller and thread.</b> A file source's reader, on its own thread, once for each file it
     * reads from its start: a file resumed from a checkpointed offset past the header is not
     * checked again.
     *
     * @throws MalformedRecordException with one line naming the first column that differs from the
     *     schema's fields (the caller adds the file); the source then fails rather than read columns
     *     into the wrong fields
     */
    default void checkFileHeader(Schema schema, OptionValues options, byte[] line) throws MalformedRecordException {
        if (!java.util.Arrays.equals(line, fileHeader(schema, options))) {
            throw new MalformedRecordException("the header line is not the one format '" + identifier()
                    + "' writes for fields " + String.join(", ", schema.names()));
        }
    }

    /**
     * Whether this format's records are changes (a changelog format such as debezium-json): its
     * decoded rows can be updates and deletes, not only inserts, and one record can decode to more
     * or fewer than one row (FMT-8). False by default.
     *
     * <p><b>Caller and thread.</b> The job-file loader, before the job runs, to treat the source's
     * rows as a changelog (CHG-3: an appending sink after it is refused); and connector factories,
     * which refuse such a format unless their readers call {@link RowDecoder#decodeRows} and
     * {@link RowDecoder#decodeAbsent} (or, for writers, skip a {@code null} from
     * {@link RowEncoder#encode}). A format that returns true refuses a schema without a primary key
     * in {@link #createDecoder} and {@link #createEncoder} (CHG-1).
     */
    default boolean producesChanges(OptionValues options) {
        return false;
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

    /**
     * Whether files of this format are written and read whole (Parquet: a file ends with a footer;
     * Avro: an object container file, whose blocks cannot be cut back to a record), rather than as
     * one record per line (FMT-5). File connectors then use only {@link #createFileWriter} and
     * {@link #createFileReader}. A whole-file format without an encoding of a single record
     * (Parquet) gives no decoder or encoder: its {@link #createDecoder} and {@link #createEncoder}
     * throw an {@link dev.onceflow.spi.factory.OptionException} naming the format, so every
     * connector that needs records refuses it before the job runs; one with such an encoding
     * (Avro's single datum) keeps them for connectors of records, such as Kafka's. False by default.
     */
    default boolean writesWholeFiles() {
        return false;
    }

    /**
     * A writer of rows of {@code schema} into one new file, whose bytes go to {@code out}, which
     * starts empty (FMT-5). The writer never closes {@code out}; its {@link RowFileWriter#finish}
     * writes the file's end and flushes.
     *
     * <p><b>Caller and thread.</b> A file sink's writer, on its task thread, once per file; and its
     * factory while the job file is validated, over {@link OutputStream#nullOutputStream()}, to check
     * the schema (FMT-4): nothing is written to {@code out} before the first row or {@code finish}.
     *
     * <p>The default, right for line formats, writes the {@link #fileHeader} (if any) and
     * {@code \n} at the first row or at {@code finish}, then each row's {@link #createEncoder
     * encoded} record and {@code \n}, and refuses a record holding a line break where {@link #lineBreaks} is
     * {@link LineBreaks#ANYWHERE}.
     *
     * @throws dev.onceflow.spi.factory.OptionException with one line naming the field, if the format
     *     cannot represent a field of {@code schema} (FMT-4)
     */
    default RowFileWriter createFileWriter(Schema schema, OptionValues options, OutputStream out) {
        return new LineFileWriter(identifier(), createEncoder(schema, options), lineBreaks(options),
                fileHeader(schema, options), out);
    }

    /**
     * A reader of the rows of one complete file of this format, as rows of {@code schema}, whose bytes
     * are {@code input} (FMT-7). Only a format that {@link #writesWholeFiles writes whole files}
     * gives one; the default refuses with an {@link dev.onceflow.spi.factory.OptionException} naming
     * the format, since line formats are read line by line with {@link #createDecoder}.
     *
     * <p><b>Caller and thread.</b> A file source's reader, on its task thread, once each time it
     * starts reading a file (again after a restore); the source closes the reader, then the input.
     * The caller may assume nothing about the file but that it does not change while it is read.
     *
     * <p><b>What it guarantees.</b> Every reader of the same file returns the same rows in the same
     * order, so a source that skips the rows it emitted before a checkpoint goes on exactly where it
     * was (SRC-1). The file's columns are matched to {@code schema}'s fields by name; columns the
     * schema does not name are not read. A field of {@code schema} the file does not hold, or holds
     * with another type, or may hold null where the field is {@code not null}, is refused here, before
     * any row is returned, never read as null.
     *
     * @throws MalformedRecordException with one line naming the field and what the file holds
     *     instead, if the file's columns do not fit {@code schema} (the caller adds the file)
     * @throws IOException if the file cannot be read or is not a file of this format (no footer)
     */
    default RowFileReader createFileReader(Schema schema, OptionValues options, RandomAccessInput input)
            throws MalformedRecordException, IOException {
        throw new OptionException("format '" + identifier()
                + "' is read line by line, not as whole files");
    }
}
