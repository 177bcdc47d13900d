package dev.onceflow.format.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.conformance.format.TestRows;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RandomAccessInput;
import dev.onceflow.spi.format.RowFileReader;
import dev.onceflow.spi.format.RowFileWriter;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FMT-1 and FMT-7 for Parquet: rows written by the Parquet writer read back through
 * {@code createFileReader} as the very same rows, in order; columns matched by name; a file that
 * does not fit the schema refused before its first row, naming the field.
 */
class ParquetRowFileReaderTest {

    private static final ParquetFormatFactory FACTORY = new ParquetFormatFactory();
    private static final Format PARQUET = new Format(FACTORY,
            OptionValues.validate("format 'parquet'", Map.of(), FACTORY.options()));

    /** Decimals on each side of the int32 / int64 / fixed-length boundaries, and not-null fields. */
    private static final Schema DECIMALS = Schema.of(
            Field.of("d9", DataType.decimal(9, 2)),
            Field.of("d10", DataType.decimal(10, 0).notNull()),
            Field.of("d18", DataType.decimal(18, 18)),
            Field.of("d19", DataType.decimal(19, 3).notNull()),
            Field.of("d38", DataType.decimal(38, 0)),
            Field.of("nested", DataType.array(DataType.map(DataType.STRING.notNull(),
                    DataType.row(Field.of("x", DataType.INT.notNull()))).notNull())));

    @TempDir
    Path dir;

    @Test
    void everyTypeAndEveryNullReadsBackAsTheRowsWrittenInOrder() throws Exception {
        List<Row> rows = new ArrayList<>(TestRows.all());
        for (long id = 10; id < 3_010; id++) {
            rows.add(id % 7 == 0 ? TestRows.nulls(id) : TestRows.full(id)); // several pages, dictionaries
        }
        Path file = write(TestRows.EVERY_TYPE, rows);

        assertThat(readAll(file, TestRows.EVERY_TYPE)).containsExactlyElementsOf(rows);
    }

    @Test
    void decimalsOfEveryWidthAndNestedNotNullTypesReadBack() throws Exception {
        List<Row> rows = List.of(
                Row.of(DECIMALS, new BigDecimal("-9999999.99"), new BigDecimal("9999999999"),
                        new BigDecimal("-0.999999999999999999"), new BigDecimal("-9999999999999999.999"),
                        new BigDecimal("-99999999999999999999999999999999999999"),
                        List.of(Map.of("k", Row.of(DataType.row(Field.of("x", DataType.INT.notNull())).schema(), 7)))),
                Row.of(DECIMALS, null, BigDecimal.ZERO, null, new BigDecimal("0.001"), null, null),
                Row.of(DECIMALS, null, BigDecimal.ONE, null, new BigDecimal("0.000"), null,
                        Arrays.asList(Map.of(), Map.of())));
        assertThat(readAll(write(DECIMALS, rows), DECIMALS)).containsExactlyElementsOf(rows);
    }

    /** A file from parquet-hadoop's own example writer: other column order, extra columns, required columns. */
    @Test
    void columnsAreMatchedByNameInAFileOfAnotherWriter() throws Exception {
        MessageType type = MessageTypeParser.parseMessageType("""
                message other {
                  required binary city (STRING);
                  optional int64 population;
                  required int32 zip;
                  optional group tags (LIST) { repeated group array { optional binary item (STRING); } }
                  required group place { required double lat; required double lon; optional int32 alt; }
                }""");
        Path file = dir.resolve("other.parquet");
        SimpleGroupFactory groups = new SimpleGroupFactory(type);
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(type)
                .withConf(new PlainParquetConfiguration()).build()) {
            Group first = groups.newGroup().append("city", "Zürich").append("population", 421_878L).append("zip", 8001);
            first.addGroup("tags").addGroup("array").append("item", "✓");
            first.addGroup("place").append("lat", 47.37).append("lon", 8.54);
            writer.write(first);
            Group second = groups.newGroup().append("city", "Αθήνα").append("zip", 10431);
            second.addGroup("place").append("lat", 37.98).append("lon", 23.73).append("alt", 70);
            writer.write(second);
        }
        Schema place = Schema.of(Field.of("lon", DataType.DOUBLE), Field.of("lat", DataType.DOUBLE.notNull()));
        Schema schema = Schema.of(Field.of("zip", DataType.INT), Field.of("city", DataType.STRING.notNull()),
                Field.of("population", DataType.LONG), Field.of("tags", DataType.array(DataType.STRING)),
                Field.of("place", DataType.row(place)));

        assertThat(readAll(file, schema)).containsExactly(
                Row.of(schema, 8001, "Zürich", 421_878L, List.of("✓"), Row.of(place, 8.54, 47.37)),
                Row.of(schema, 10431, "Αθήνα", null, null, Row.of(place, 23.73, 37.98)));
    }

    @Test
    void aFieldTheFileLacksIsRefusedNamingIt() throws Exception {
        Path file = write(TestRows.ITEM, List.of(Row.of(TestRows.ITEM, "a", 1)));
        Schema declared = Schema.of(Field.of("sku", DataType.STRING), Field.of("price", DataType.DOUBLE));

        assertThatThrownBy(() -> open(file, declared)).isInstanceOf(MalformedRecordException.class)
                .hasMessage("field 'price' is not in the file, whose columns are [sku, qty]");
    }

    @Test
    void aFieldOfAnotherTypeIsRefusedNamingItAndBothTypes() throws Exception {
        Path file = write(TestRows.ITEM, List.of(Row.of(TestRows.ITEM, "a", 1)));
        Schema declared = Schema.of(Field.of("sku", DataType.STRING), Field.of("qty", DataType.LONG));

        assertThatThrownBy(() -> open(file, declared)).isInstanceOf(MalformedRecordException.class)
                .hasMessage("field 'qty' is declared long, read from Parquet as 'optional int64 qty', "
                        + "but the file holds 'optional int32 qty'");
    }

    @Test
    void aNullableColumnIsRefusedForANotNullFieldAndANestedMismatchNamesItsPath() throws Exception {
        Path file = write(TestRows.EVERY_TYPE, List.of(TestRows.full(1)));
        Schema notNull = Schema.of(Field.of("small", DataType.INT.notNull()));
        Schema nested = Schema.of(Field.of("item", DataType.row(Field.of("qty", DataType.STRING))));
        Schema tz = Schema.of(Field.of("local_ts", DataType.TIMESTAMP_TZ));

        assertThatThrownBy(() -> open(file, notNull)).hasMessageStartingWith("field 'small' is declared int not null");
        assertThatThrownBy(() -> open(file, nested)).hasMessageStartingWith("field 'item.qty' is declared string");
        assertThatThrownBy(() -> open(file, tz)).hasMessageStartingWith("field 'local_ts' is declared timestamptz");
    }

    @Test
    void aTruncatedFileOrAnotherFormatIsAnIOException() throws Exception {
        Path file = write(TestRows.ITEM, List.of(Row.of(TestRows.ITEM, "a", 1)));
        byte[] bytes = Files.readAllBytes(file);
        Path truncated = dir.resolve("truncated.parquet");
        Files.write(truncated, Arrays.copyOf(bytes, bytes.length - 9));
        Path text = dir.resolve("text.parquet");
        Files.writeString(text, "{\"sku\": \"a\"}\n");

        assertThatThrownBy(() -> open(truncated, TestRows.ITEM)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> open(text, TestRows.ITEM)).isInstanceOf(IOException.class);
    }

    @Test
    void lineFormatsGiveNoFileReader() {
        Format lines = new Format(new dev.onceflow.spi.format.FormatFactory() {
            @Override
            public String identifier() {
                return "lines";
            }

            @Override
            public String description() {
                return "";
            }

            @Override
            public List<dev.onceflow.spi.factory.Option<?>> options() {
                return List.of();
            }

            @Override
            public dev.onceflow.spi.format.RowDecoder createDecoder(Schema schema, OptionValues options) {
                return null;
            }

            @Override
            public dev.onceflow.spi.format.RowEncoder createEncoder(Schema schema, OptionValues options) {
                return null;
            }
        }, OptionValues.validate("format 'lines'", Map.of(), List.of()));
        assertThatThrownBy(() -> lines.createFileReader(TestRows.ITEM, null)).isInstanceOf(OptionException.class)
                .hasMessage("format 'lines' is read line by line, not as whole files");
    }

    private Path write(Schema schema, List<Row> rows) throws IOException {
        Path file = dir.resolve("rows-" + System.nanoTime() + ".parquet");
        try (OutputStream out = Files.newOutputStream(file)) {
            RowFileWriter writer = PARQUET.createFileWriter(schema, out);
            for (Row row : rows) {
                writer.write(row);
            }
            writer.finish();
        }
        return file;
    }

    private static List<Row> readAll(Path file, Schema schema) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                RowFileReader reader = PARQUET.createFileReader(schema, input(channel))) {
            Row row;
            while ((row = reader.next()) != null) {
                rows.add(row);
            }
            assertThat(reader.next()).isNull();
        }
        return rows;
    }

    private static void open(Path file, Schema schema) throws Exception {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            PARQUET.createFileReader(schema, input(channel)).close();
        }
    }

    private static RandomAccessInput input(FileChannel channel) {
        return new RandomAccessInput() {
            @Override
            public long length() throws IOException {
                return channel.size();
            }

            @Override
            public int read(long position, byte[] buffer, int offset, int length) throws IOException {
                return channel.read(ByteBuffer.wrap(buffer, offset, length), position);
            }
        };
    }
}
