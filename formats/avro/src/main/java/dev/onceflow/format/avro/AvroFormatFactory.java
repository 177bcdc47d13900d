package dev.onceflow.format.avro;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RandomAccessInput;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.format.RowFileReader;
import dev.onceflow.spi.format.RowFileWriter;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.avro.SchemaParseException;

/**
 * The {@code avro} format: each record is the Avro binary encoding of one row (one datum, no
 * container file), optionally behind Confluent's five-byte header; and in files, an Avro object
 * container file of rows, written whole (FMT-5) and read whole (FMT-7). The Avro schema comes from a
 * schema file, which then fixes the row's fields, or is derived from the job file's schema.
 */
public final class AvroFormatFactory implements FormatFactory {

    /** How a record holds its Avro datum. */
    public enum WireFormat {
        /** The Avro binary of the datum, nothing else. */
        PLAIN,
        /** Byte 0, the schema id as 4 bytes big-endian, then the Avro binary (Confluent's serializers). */
        CONFLUENT
    }

    private static final String OWNER = "format 'avro'";

    public static final Option<String> SCHEMA_FILE = Option.stringOption("schema-file")
            .check(AvroFormatFactory::notAFile, "the path of an Avro schema file (.avsc) holding a record")
            .description("An Avro schema whose record fixes the rows' fields (see the type mapping); without it, "
                    + "the Avro schema is derived from the job file's schema.");

    public static final Option<WireFormat> WIRE_FORMAT = Option.enumOption("wire-format", WireFormat.class)
            .defaultValue(WireFormat.PLAIN)
            .description("plain: a record is the Avro binary of one row; confluent: byte 0, the 4-byte big-endian "
                    + "schema id, then the Avro binary, as Confluent's serializers write it.");

    public static final Option<Integer> SCHEMA_ID = Option.intOption("schema-id").atLeast(0)
            .description("With wire-format confluent (and only then, where it is required): the schema id written "
                    + "into each record, and the one each record read must carry. No registry is asked.");

    /** No default, so that setting it where it does nothing is refused; files are written {@link #DEFAULT_CODEC}. */
    public static final Option<AvroCodec> CODEC = Option.enumOption("codec", AvroCodec.class)
            .description("Files written only: the codec of the blocks of each Avro container file the filesystem "
                    + "sink writes, null (none), deflate or snappy; snappy if not set. Refused elsewhere: files read "
                    + "name their own codec, and single records (Kafka) are never compressed.");

    static final AvroCodec DEFAULT_CODEC = AvroCodec.SNAPPY;

    @Override
    public String identifier() {
        return "avro";
    }

    @Override
    public String description() {
        return "The Avro binary of one row per record, plain or in Confluent's wire format, or Avro container files "
                + "of rows; the Avro schema from a schema file or derived from the job file's schema.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(SCHEMA_FILE, WIRE_FORMAT, SCHEMA_ID, CODEC);
    }

    /** With a schema file, its record's fields; the wire format's options are checked here too, before the job runs. */
    @Override
    public Optional<Schema> schema(OptionValues options) {
        header(options);
        return schemaFile(options).map(file -> rowSchema(file, options));
    }

    @Override
    public RowDecoder createDecoder(Schema schema, OptionValues options) {
        refuseCodec(options, "a record (Kafka) is one Avro datum, never compressed");
        return new AvroRowDecoder(schema, avroSchema(schema, options), header(options));
    }

    @Override
    public RowEncoder createEncoder(Schema schema, OptionValues options) {
        refuseCodec(options, "a record (Kafka) is one Avro datum, never compressed");
        return new AvroRowEncoder(schema, avroSchema(schema, options), header(options));
    }

    /**
     * Files are Avro object container files: the filesystem sink writes one per subtask and
     * checkpoint, and the file source reads them whole. Records (Kafka) stay single datums.
     */
    @Override
    public boolean writesWholeFiles() {
        return true;
    }

    @Override
    public RowFileWriter createFileWriter(Schema schema, OptionValues options, OutputStream out) {
        refuseHeaderInFiles(options);
        return new AvroRowFileWriter(schema, avroSchema(schema, options), options.getOptional(CODEC).orElse(DEFAULT_CODEC),
                out);
    }

    /** The file's own schema is matched by name to {@code schema}; a schema file plays no part in reading. */
    @Override
    public RowFileReader createFileReader(Schema schema, OptionValues options, RandomAccessInput input)
            throws MalformedRecordException, IOException {
        refuseHeaderInFiles(options);
        refuseCodec(options, "a file read names its own codec in its header");
        return AvroRowFileReader.open(schema, input);
    }

    /** {@code codec} applies to files written only: set anywhere else, it would silently do nothing. */
    private static void refuseCodec(OptionValues options, String why) {
        if (options.getOptional(CODEC).isPresent()) {
            throw new OptionException(OWNER + ": option 'codec' is for the Avro files the filesystem sink writes; "
                    + why + ": remove it");
        }
    }

    /** A container file holds its schema in its header: Confluent's per-record header has no place in it. */
    private static void refuseHeaderInFiles(OptionValues options) {
        if (header(options).length > 0) {
            throw new OptionException(OWNER + ": wire-format confluent is for records (Kafka); files are Avro "
                    + "container files, which hold their schema: remove options 'wire-format' and 'schema-id'");
        }
    }

    /**
     * The bytes before each datum: none for plain, the magic byte and the schema id for confluent.
     *
     * @throws OptionException if schema-id is missing with confluent, or given with plain
     */
    private static byte[] header(OptionValues options) {
        Optional<Integer> id = options.getOptional(SCHEMA_ID);
        if (options.get(WIRE_FORMAT) == WireFormat.PLAIN) {
            if (id.isPresent()) {
                throw new OptionException(OWNER + ": option 'schema-id' is only for wire-format confluent; remove it, "
                        + "or set wire-format: confluent");
            }
            return new byte[0];
        }
        int schemaId = id.orElseThrow(() -> new OptionException(OWNER + ": wire-format confluent needs option "
                + "'schema-id', the id of the schema in your registry (no registry is asked)"));
        return new byte[] {AvroRowDecoder.MAGIC_BYTE, (byte) (schemaId >>> 24), (byte) (schemaId >>> 16),
                (byte) (schemaId >>> 8), (byte) schemaId};
    }

    /**
     * The Avro schema rows of {@code schema} are read and written in: the schema file's, whose
     * fields must then be {@code schema}'s, or the one derived from {@code schema}.
     */
    private static org.apache.avro.Schema avroSchema(Schema schema, OptionValues options) {
        Optional<org.apache.avro.Schema> file = schemaFile(options);
        if (file.isEmpty()) {
            try {
                return AvroSchemas.toAvro(schema);
            } catch (AvroSchemas.Unmappable e) {
                throw new OptionException(OWNER + ": " + e.getMessage());
            }
        }
        List<Field> fromFile = rowSchema(file.get(), options).fields();
        List<Field> given = schema.fields();
        for (int i = 0; i < Math.max(fromFile.size(), given.size()); i++) {
            Field expected = i < fromFile.size() ? fromFile.get(i) : null;
            Field actual = i < given.size() ? given.get(i) : null;
            if (expected == null || !expected.equals(actual)) {
                String where = "option 'schema-file' " + options.get(SCHEMA_FILE);
                throw new OptionException(OWNER + ": " + (expected == null
                        ? "field '" + actual.name() + "' of the rows is not in the record of " + where
                        : "field " + (i + 1) + " of the record of " + where + " is '" + expected
                                + "', but the rows have " + (actual == null ? "no such field" : "'" + actual + "'")));
            }
        }
        return file.get();
    }

    private static Schema rowSchema(org.apache.avro.Schema file, OptionValues options) {
        try {
            return AvroSchemas.toRowSchema(file);
        } catch (IllegalArgumentException e) {
            throw fileProblem(options, e.getMessage());
        }
    }

    /** The schema file's Avro schema, parsed anew: a factory keeps no state. */
    private static Optional<org.apache.avro.Schema> schemaFile(OptionValues options) {
        Optional<String> path = options.getOptional(SCHEMA_FILE);
        if (path.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new org.apache.avro.Schema.Parser().parse(Files.readString(Path.of(path.get()))));
        } catch (NoSuchFileException e) {
            throw fileProblem(options, "no such file");
        } catch (IOException e) {
            throw fileProblem(options, "cannot be read: " + e.getMessage());
        } catch (SchemaParseException e) {
            throw fileProblem(options, "not an Avro schema: " + firstLine(e.getMessage()));
        } catch (RuntimeException e) {
            // Avro reports some mistakes (a bad default, a bad logical type's parameters) as other exceptions
            throw fileProblem(options, "not an Avro schema: " + firstLine(String.valueOf(e.getMessage())));
        }
    }

    private static OptionException fileProblem(OptionValues options, String problem) {
        return new OptionException(OWNER + ": option 'schema-file' " + options.get(SCHEMA_FILE) + ": " + problem);
    }

    /** Jackson's parse errors run over several lines, quoting the source; the first says what is wrong. */
    private static String firstLine(String message) {
        String line = message.lines().findFirst().orElse("").strip();
        return line.length() > 300 ? line.substring(0, 300) + "..." : line;
    }

    /** A value-level check for {@link #SCHEMA_FILE}, so a wrong path is reported with the other options. */
    private static String notAFile(String path) {
        try {
            Path file = Path.of(path);
            if (Files.isDirectory(file)) {
                return "is a directory";
            }
            return Files.isRegularFile(file) ? null : "is not an existing file";
        } catch (InvalidPathException e) {
            return "is not a path";
        }
    }
}
