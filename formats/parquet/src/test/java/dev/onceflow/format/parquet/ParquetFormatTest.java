package dev.onceflow.format.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.conformance.format.TestRows;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.RowFileWriter;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * FMT-1 and FMT-5 for Parquet: rows written through {@code createFileWriter} read back, with
 * Parquet's own reader, as the very same rows, with every codec offered; the file's schema is the
 * mapping table of docs/formats/parquet.md.
 */
class ParquetFormatTest {

    private static final ParquetFormatFactory FACTORY = new ParquetFormatFactory();

    /** Decimals on each side of the int32 / int64 / fixed-length boundaries, and negative ones. */
    private static final Schema DECIMALS = Schema.of(
            Field.of("d9", DataType.decimal(9, 2)),
            Field.of("d10", DataType.decimal(10, 0)),
            Field.of("d18", DataType.decimal(18, 18)),
            Field.of("d19", DataType.decimal(19, 3).notNull()),
            Field.of("d38", DataType.decimal(38, 0)));

    @TempDir
    Path dir;

    private static Format format(Map<String, String> options) {
        return new Format(FACTORY, OptionValues.validate("format 'parquet'", options, FACTORY.options()));
    }

    private Path write(Format format, Schema schema, List<Row> rows) throws IOException {
        Path file = dir.resolve("rows-" + System.nanoTime() + ".parquet");
        try (OutputStream out = Files.newOutputStream(file)) {
            RowFileWriter writer = format.createFileWriter(schema, out);
            for (Row row : rows) {
                writer.write(row);
            }
            writer.finish();
        }
        return file;
    }

    @ParameterizedTest
    @EnumSource(ParquetCompression.class)
    void everyTypeReadsBackExactlyWithEachCodec(ParquetCompression compression) throws IOException {
        List<Row> rows = new ArrayList<>(TestRows.all());
        for (long id = 10; id < 2_010; id++) {
            rows.add(TestRows.full(id)); // more than one page, dictionary-encoded columns
        }
        Path file = write(format(Map.of("compression", compression.name().toLowerCase())), TestRows.EVERY_TYPE, rows);

        assertThat(ParquetFiles.read(file, TestRows.EVERY_TYPE)).containsExactlyElementsOf(rows);
        CompressionCodecName expected = compression == ParquetCompression.NONE ? CompressionCodecName.UNCOMPRESSED
                : CompressionCodecName.valueOf(compression.name());
        for (BlockMetaData block : ParquetFiles.footer(file).getBlocks()) {
            for (ColumnChunkMetaData column : block.getColumns()) {
                assertThat(column.getCodec()).as("codec of %s", column.getPath()).isEqualTo(expected);
            }
        }
    }

    @Test
    void aSmallRowGroupSizeSplitsTheFileIntoRowGroupsThatReadBackInOrder() throws IOException {
        List<Row> rows = new ArrayList<>();
        for (long id = 0; id < 3_000; id++) {
            rows.add(TestRows.full(id));
        }
        Path file = write(format(Map.of("row-group-size", "1024")), TestRows.EVERY_TYPE, rows);

        assertThat(ParquetFiles.footer(file).getBlocks()).as("row groups").hasSizeGreaterThan(1);
        assertThat(ParquetFiles.read(file, TestRows.EVERY_TYPE)).containsExactlyElementsOf(rows);
    }

    @Test
    void decimalsOfEveryWidthReadBackExactly() throws IOException {
        List<Row> rows = List.of(
                Row.of(DECIMALS, new BigDecimal("9999999.99"), new BigDecimal("-9999999999"),
                        new BigDecimal("0.999999999999999999"), new BigDecimal("9999999999999999.999"),
                        new BigDecimal("-99999999999999999999999999999999999999")),
                Row.of(DECIMALS, new BigDecimal("-0.01"), new BigDecimal("0"), new BigDecimal("-0.000000000000000001"),
                        new BigDecimal("-9999999999999999.999"), new BigDecimal("1")),
                // small negatives in fixed-length bytes: sign-extended, not zero-padded
                Row.of(DECIMALS, null, null, null, new BigDecimal("-0.001"), new BigDecimal("-1")),
                Row.of(DECIMALS, null, null, null, new BigDecimal("0.000"), null));
        Path file = write(format(Map.of()), DECIMALS, rows);

        assertThat(ParquetFiles.read(file, DECIMALS)).containsExactlyElementsOf(rows);
        assertThat(ParquetFiles.footer(file).getFileMetaData().getSchema().toString()).isEqualToIgnoringWhitespace("""
                message onceflow {
                  optional int32 d9 (DECIMAL(9,2));
                  optional int64 d10 (DECIMAL(10,0));
                  optional int64 d18 (DECIMAL(18,18));
                  required fixed_len_byte_array(9) d19 (DECIMAL(19,3));
                  optional fixed_len_byte_array(16) d38 (DECIMAL(38,0));
                }""");
    }

    @Test
    void theFilesSchemaIsTheMappingTable() throws IOException {
        Path file = write(format(Map.of()), TestRows.EVERY_TYPE, TestRows.all());

        assertThat(ParquetFiles.footer(file).getFileMetaData().getSchema().toString()).isEqualToIgnoringWhitespace("""
                message onceflow {
                  required int64 id;
                  optional boolean flag;
                  optional int32 small;
                  optional float ratio;
                  optional double score;
                  optional fixed_len_byte_array(16) amount (DECIMAL(38,10));
                  optional binary name (STRING);
                  optional binary blob;
                  optional int32 day (DATE);
                  optional int64 at_time (TIME(MICROS,false));
                  optional int64 local_ts (TIMESTAMP(MICROS,false));
                  optional int64 instant (TIMESTAMP(MICROS,true));
                  optional group item {
                    required binary sku (STRING);
                    optional int32 qty;
                  }
                  optional group tags (LIST) {
                    repeated group list {
                      optional binary element (STRING);
                    }
                  }
                  optional group counts (MAP) {
                    repeated group key_value {
                      required binary key (STRING);
                      optional int64 value;
                    }
                  }
                }""");
        assertThat(ParquetFiles.footer(file).getFileMetaData().getKeyValueMetaData())
                .containsEntry("onceflow.schema", TestRows.EVERY_TYPE.toString());
    }

    @Test
    void aTimeFinerThanAMicrosecondIsRefusedNamingTheField() {
        Schema schema = Schema.of(Field.of("id", DataType.LONG),
                Field.of("events", DataType.array(DataType.row(Field.of("at", DataType.TIMESTAMP)))));
        Row row = Row.of(schema, 1L, List.of(Row.of(DataType.row(Field.of("at", DataType.TIMESTAMP)).schema(),
                LocalDateTime.of(2026, 12, 6, 12, 0, 0, 1))));

        assertThatThrownBy(() -> write(format(Map.of()), schema, List.of(row))).isInstanceOf(IOException.class)
                .hasMessage("format 'parquet': field 'events[0].at': 2026-12-06T12:00:00.000000001 has nanoseconds; "
                        + "Parquet stores microseconds, and it is not rounded");
    }

    @Test
    void valuesBeyondParquetsRangesAreRefusedNamingTheField() {
        Schema schema = Schema.of(Field.of("day", DataType.DATE), Field.of("at", DataType.TIMESTAMP_TZ),
                Field.of("t", DataType.TIME));
        assertThatThrownBy(() -> write(format(Map.of()), schema, List.of(Row.of(schema, LocalDate.MAX, null, null))))
                .hasMessageStartingWith("format 'parquet': field 'day': date +999999999-12-31 is outside the range");
        assertThatThrownBy(() -> write(format(Map.of()), schema, List.of(Row.of(schema, null, Instant.MAX, null))))
                .hasMessageStartingWith("format 'parquet': field 'at': +1000000000-12-31T23:59:59.999999999Z has nanoseconds");
        assertThatThrownBy(() -> write(format(Map.of()), schema,
                List.of(Row.of(schema, null, Instant.parse("+300000-01-01T00:00:00Z"), null))))
                .hasMessageStartingWith("format 'parquet': field 'at': +300000-01-01T00:00:00Z is outside the range");
        assertThatThrownBy(() -> write(format(Map.of()), schema, List.of(Row.of(schema, null, null, LocalTime.MAX))))
                .hasMessageStartingWith("format 'parquet': field 't': 23:59:59.999999999 has nanoseconds");
    }

    @Test
    void makingAWriterChecksTheSchemaAndWritesNothing() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        format(Map.of()).createFileWriter(TestRows.EVERY_TYPE, out);
        assertThat(out.size()).isZero();
    }

    @Test
    void parquetIsAWholeFileFormatWithoutRecordCodecs() {
        Format parquet = format(Map.of());
        assertThat(parquet.writesWholeFiles()).isTrue();
        assertThatThrownBy(() -> parquet.createEncoder(TestRows.EVERY_TYPE)).isInstanceOf(OptionException.class)
                .hasMessage("format 'parquet' writes whole files, not single records; use it with the filesystem sink");
        assertThatThrownBy(() -> parquet.createDecoder(TestRows.EVERY_TYPE)).isInstanceOf(OptionException.class)
                .hasMessage("format 'parquet' is read as whole files, not record by record; "
                        + "use it with the file source");
    }

    @Test
    void anUnknownCodecIsRefusedNamingTheOption() {
        assertThatThrownBy(() -> format(Map.of("compression", "lzo"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("compression").hasMessageContaining("snappy");
    }
}
