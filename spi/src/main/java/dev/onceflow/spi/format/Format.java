package dev.onceflow.spi.format;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Objects;
import java.util.Optional;

/**
 * A format as a job file chose it for one connector: the factory and its validated options. The
 * runtime makes it and hands it to the connector's factory, which makes decoders or encoders from
 * it in its readers or writers. Immutable and safe to share between threads.
 */
public final class Format {

    private final FormatFactory factory;
    private final OptionValues options;

    public Format(FormatFactory factory, OptionValues options) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.options = Objects.requireNonNull(options, "options");
    }

    /** The format's name, such as {@code "json"}. */
    public String identifier() {
        return factory.identifier();
    }

    public FormatFactory factory() {
        return factory;
    }

    public OptionValues options() {
        return options;
    }

    /** Where records may hold line breaks; see {@link FormatFactory#lineBreaks}. */
    public LineBreaks lineBreaks() {
        return factory.lineBreaks(options);
    }

    /**
     * The schema of the records: the one the format's options fix, or else the one the job file
     * declares.
     *
     * @param declared the job file's schema for this connector, if it declares one
     * @param owner how errors name the connector, such as {@code "source 'file'"}
     * @throws OptionException if neither gives a schema, or both do and they differ
     */
    public Schema schema(Optional<Schema> declared, String owner) {
        Optional<Schema> fixed = factory.schema(options);
        if (fixed.isPresent()) {
            if (declared.isPresent() && !declared.get().equals(fixed.get())) {
                throw new OptionException(owner + ": format '" + identifier() + "' fixes the schema to " + fixed.get()
                        + ", but the job file declares " + declared.get() + "; remove the job file's schema");
            }
            return fixed.get();
        }
        return declared.orElseThrow(() -> new OptionException(owner + ": format '" + identifier()
                + "' needs a schema: declare the record's fields under schema: fields:"));
    }

    /** Whether records are changes, not only inserts; see {@link FormatFactory#producesChanges}. */
    public boolean producesChanges() {
        return factory.producesChanges(options);
    }

    /** A decoder for one reader; see {@link FormatFactory#createDecoder}. */
    public RowDecoder createDecoder(Schema schema) {
        return factory.createDecoder(schema, options);
    }

    /** An encoder for one writer; see {@link FormatFactory#createEncoder}. */
    public RowEncoder createEncoder(Schema schema) {
        return factory.createEncoder(schema, options);
    }

    /** The header line files start with, empty for none; see {@link FormatFactory#fileHeader}. */
    public byte[] fileHeader(Schema schema) {
        return factory.fileHeader(schema, options);
    }

    /** Checks a file's first line; see {@link FormatFactory#checkFileHeader}. */
    public void checkFileHeader(Schema schema, byte[] line) throws MalformedRecordException {
        factory.checkFileHeader(schema, options, line);
    }

    /** Whether the format writes whole files only; see {@link FormatFactory#writesWholeFiles}. */
    public boolean writesWholeFiles() {
        return factory.writesWholeFiles();
    }

    /** A writer of one file; see {@link FormatFactory#createFileWriter}. */
    public RowFileWriter createFileWriter(Schema schema, OutputStream out) {
        return factory.createFileWriter(schema, options, out);
    }

    /** A reader of one whole file; see {@link FormatFactory#createFileReader}. */
    public RowFileReader createFileReader(Schema schema, RandomAccessInput input)
            throws MalformedRecordException, IOException {
        return factory.createFileReader(schema, options, input);
    }

    @Override
    public String toString() {
        return identifier();
    }
}
