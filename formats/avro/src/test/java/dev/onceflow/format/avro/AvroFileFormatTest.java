package dev.onceflow.format.avro;

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
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * FMT-5 and FMT-7 for Avro object container files: rows of every type written by the format are
 * read back by Avro's own {@code DataFileReader} as the same values, with each codec; a file written
 * by Avro's own {@code DataFileWriter}, its fields in another order and one more, reads by name;
 * a file that does not fit the rows is refused before its first row, naming the field.
 */
class AvroFileFormatTest {

    private static final AvroFormatFactory FACTORY = new AvroFormatFactory();

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(AvroCodec.class)
    void everyTypeAndEveryNullIsReadBackByAvrosOwnReaderWithEachCodec(AvroCodec codec) throws Exception {
        List<Row> rows = manyRows();
        Path file = write(avro(Map.of("codec", codec.name().toLowerCase())), TestRows.EVERY_TYPE, rows);

        assertThat(AvroFiles.codec(file)).isEqualTo(codec.name().toLowerCase());
        assertThat(AvroFiles.read(file, TestRows.EVERY_TYPE)).containsExactlyElementsOf(rows);
        GenericRecord first = AvroFiles.records(file).get(0);
        assertThat(first.getSchema().getFullName()).isEqualTo("onceflow.Row");
        assertThat(first.getSchema().getField("amount").schema().getTypes().get(1).getLogicalType())
                .isEqualTo(LogicalTypes.decimal(38, 10));
        assertThat(first.getSchema().getField("instant").schema().getTypes().get(1).getLogicalType())
                .isEqualTo(LogicalTypes.timestampMicros());
    }

    @Test
    void theDefaultCodecIsSnappyAndTheFormatsReaderGivesTheRowsInTheFilesOrder() throws Exception {
        List<Row> rows = manyRows();
        Path file = write(avro(Map.of()), TestRows.EVERY_TYPE, rows);

        assertThat(AvroFiles.codec(file)).isEqualTo("snappy");
        assertThat(readAll(file, TestRows.EVERY_TYPE)).containsExactlyElementsOf(rows);
    }

    @Test
    void aWriterWritesNothingBeforeItsFirstRowAndAnEmptyFileIsAValidFileOfNoRows() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RowFileWriter writer = avro(Map.of()).createFileWriter(TestRows.EVERY_TYPE, out);
        assertThat(out.size()).isZero();

        Path file = write(avro(Map.of()), TestRows.EVERY_TYPE, List.of());

        assertThat(AvroFiles.records(file)).isEmpty();
        assertThat(readAll(file, TestRows.EVERY_TYPE)).isEmpty();
        writer.finish();
    }

    @Test
    void aFileOfAvrosOwnWriterIsReadByNameInAnotherOrderWithAnExtraFieldAndItsOwnUnits() throws Exception {
        org.apache.avro.Schema writerSchema = new org.apache.avro.Schema.Parser().parse("""
                {"type": "record", "name": "Order", "namespace": "shop", "fields": [
                  {"name": "note", "type": "string"},
                  {"name": "placed", "type": {"type": "long", "logicalType": "timestamp-millis"}},
                  {"name": "price", "type": {"type": "fixed", "name": "Price", "size": 8,
                                             "logicalType": "decimal", "precision": 12, "scale": 2}},
                  {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID"]}},
                  {"name": "id", "type": "long"},
                  {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}], "default": null},
                  {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                    "fields": [{"name": "qty", "type": "int"}, {"name": "sku", "type": "string"}]}}}
                ]}""");
        Schema line = Schema.of(Field.of("sku", DataType.STRING.notNull()), Field.of("qty", DataType.INT));
        Schema rows = Schema.of(
                Field.of("id", DataType.LONG.notNull()),
                Field.of("status", DataType.STRING),
                Field.of("price", DataType.decimal(12, 2)),
                Field.of("placed", DataType.TIMESTAMP_TZ),
                Field.of("day", DataType.DATE),
                Field.of("lines", DataType.array(DataType.row(line))));
        Path file = dir.resolve("orders.avro");
        Conversions.DecimalConversion decimals = new Conversions.DecimalConversion();
        org.apache.avro.Schema priceSchema = writerSchema.getField("price").schema();
        org.apache.avro.Schema lineSchema = writerSchema.getField("lines").schema().getElementType();
        try (DataFileWriter<GenericRecord> writer = new DataFileWriter<GenericRecord>(new GenericDatumWriter<>())) {
            writer.create(writerSchema, file.toFile());
            for (long id = 1; id <= 2; id++) {
                GenericData.Record lineRecord = new GenericData.Record(lineSchema);
                lineRecord.put("qty", (int) id);
                lineRecord.put("sku", "sku-ü-" + id);
                GenericData.Record order = new GenericData.Record(writerSchema);
                order.put("note", "not read");
                order.put("placed", 1_700_000_000_123L + id);
                order.put("price", decimals.toFixed(new BigDecimal("-12345.6" + id), priceSchema,
                        priceSchema.getLogicalType()));
                order.put("status", new GenericData.EnumSymbol(writerSchema.getField("status").schema(),
                        id == 1 ? "NEW" : "PAID"));
                order.put("id", id);
                order.put("day", id == 1 ? 20_000 : null);
                order.put("lines", List.of(lineRecord));
                writer.append(order);
            }
        }

        assertThat(readAll(file, rows)).containsExactly(
                Row.of(rows, 1L, "NEW", new BigDecimal("-12345.61"), Instant.ofEpochMilli(1_700_000_000_124L),
                        LocalDate.ofEpochDay(20_000), List.of(Row.of(line, "sku-ü-1", 1))),
                Row.of(rows, 2L, "PAID", new BigDecimal("-12345.62"), Instant.ofEpochMilli(1_700_000_000_125L),
                        null, List.of(Row.of(line, "sku-ü-2", 2))));
    }

    @Test
    void aFieldTheFileLacksIsRefusedNamingIt() throws Exception {
        Path file = write(avro(Map.of()), TestRows.ITEM, List.of(Row.of(TestRows.ITEM, "a", 1)));
        Schema declared = Schema.of(Field.of("sku", DataType.STRING), Field.of("price", DataType.DOUBLE));

        assertThatThrownBy(() -> readAll(file, declared)).isInstanceOf(MalformedRecordException.class)
                .hasMessage("field 'price': not in the file, whose fields are [sku, qty]");
    }

    @Test
    void aFieldOfAnotherTypeIsRefusedNamingItAndBothTypes() throws Exception {
        Path file = write(avro(Map.of()), TestRows.ITEM, List.of(Row.of(TestRows.ITEM, "a", 1)));
        Schema declared = Schema.of(Field.of("qty", DataType.STRING));

        assertThatThrownBy(() -> readAll(file, declared)).isInstanceOf(MalformedRecordException.class)
                .hasMessage("field 'qty': the file holds int, which is not string");
    }

    @Test
    void aNullableFieldIsRefusedForANotNullOneAndANestedMismatchNamesItsPath() throws Exception {
        Path file = write(avro(Map.of()), TestRows.EVERY_TYPE, List.of(TestRows.full(1)));
        Schema notNull = Schema.of(Field.of("small", DataType.INT.notNull()));
        Schema nested = Schema.of(Field.of("item", DataType.row(Field.of("qty", DataType.LONG))));

        assertThatThrownBy(() -> readAll(file, notNull)).isInstanceOf(MalformedRecordException.class)
                .hasMessage("field 'small': the file holds null or int, which may be null, and the field is not null");
        assertThatThrownBy(() -> readAll(file, nested)).isInstanceOf(MalformedRecordException.class)
                .hasMessage("field 'item.qty': the file holds int, which is not long");
    }

    @Test
    void aTruncatedFileOrAnotherFormatIsAnIOException() throws Exception {
        Path file = write(avro(Map.of("codec", "null")), TestRows.EVERY_TYPE, manyRows());
        byte[] bytes = Files.readAllBytes(file);
        Path truncated = Files.write(dir.resolve("truncated.avro"), Arrays.copyOf(bytes, bytes.length - 100));
        Path text = Files.writeString(dir.resolve("text.avro"), "{\"sku\": \"a\"}\n");

        assertThatThrownBy(() -> readAll(truncated, TestRows.EVERY_TYPE)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot read row ");
        assertThatThrownBy(() -> readAll(text, TestRows.ITEM)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("not a readable Avro container file");
    }

    @Test
    void confluentsWireFormatHasNoPlaceInAFile() {
        Format confluent = avro(Map.of("wire-format", "confluent", "schema-id", "7"));

        assertThatThrownBy(() -> confluent.createFileWriter(TestRows.ITEM, OutputStream.nullOutputStream()))
                .isInstanceOf(OptionException.class).hasMessageContaining("wire-format confluent is for records");
    }

    private static List<Row> manyRows() {
        List<Row> rows = new ArrayList<>(TestRows.all());
        for (long id = 10; id < 3_010; id++) {
            rows.add(id % 7 == 0 ? TestRows.nulls(id) : TestRows.full(id)); // many blocks
        }
        return rows;
    }

    /** Set where it would do nothing (records, or files read), the codec is refused in one line. */
    @Test
    void aCodecIsRefusedForRecordsAndForFilesRead() throws Exception {
        Format withCodec = avro(Map.of("codec", "deflate"));
        String refused = "format 'avro': option 'codec' is for the Avro files the filesystem sink writes; ";

        assertThatThrownBy(() -> withCodec.createEncoder(TestRows.EVERY_TYPE)).isInstanceOf(OptionException.class)
                .hasMessage(refused + "a record (Kafka) is one Avro datum, never compressed: remove it");
        assertThatThrownBy(() -> withCodec.createDecoder(TestRows.EVERY_TYPE)).isInstanceOf(OptionException.class)
                .hasMessage(refused + "a record (Kafka) is one Avro datum, never compressed: remove it");
        Path file = write(avro(Map.of()), TestRows.EVERY_TYPE, manyRows());
        try (FileChannel channel = FileChannel.open(file)) {
            assertThatThrownBy(() -> withCodec.createFileReader(TestRows.EVERY_TYPE, input(channel)))
                    .isInstanceOf(OptionException.class)
                    .hasMessage(refused + "a file read names its own codec in its header: remove it");
        }
    }

    private static Format avro(Map<String, String> options) {
        return new Format(FACTORY, OptionValues.validate("format 'avro'", options, FACTORY.options()));
    }

    private Path write(Format format, Schema schema, List<Row> rows) throws IOException {
        Path file = Files.createTempFile(dir, "rows", ".avro");
        try (OutputStream out = Files.newOutputStream(file)) {
            RowFileWriter writer = format.createFileWriter(schema, out);
            for (Row row : rows) {
                writer.write(row);
            }
            writer.finish();
        }
        return file;
    }

    private static List<Row> readAll(Path file, Schema schema) throws Exception {
        try (FileChannel channel = FileChannel.open(file);
                RowFileReader reader = avro(Map.of()).createFileReader(schema, input(channel))) {
            List<Row> rows = new ArrayList<>();
            for (Row row = reader.next(); row != null; row = reader.next()) {
                rows.add(row);
            }
            assertThat(reader.next()).as("null again after the last row").isNull();
            return rows;
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
