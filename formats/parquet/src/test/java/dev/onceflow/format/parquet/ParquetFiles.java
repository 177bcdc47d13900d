package dev.onceflow.format.parquet;

import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;

/**
 * Reads Parquet files back with Parquet's own reader ({@link GroupReadSupport} over a
 * {@link LocalInputFile}), not with anything of the writer's, and turns its groups into rows of the
 * schema the file was written with, for tests to compare with exact values.
 */
public final class ParquetFiles {

    private static final long MICROS_PER_SECOND = 1_000_000L;

    private ParquetFiles() {
    }

    /** Every row of the file, in order. */
    public static List<Row> read(Path file, Schema schema) throws IOException {
        List<Row> rows = new ArrayList<>();
        try (ParquetReader<Group> reader = new ParquetReader.Builder<Group>(new LocalInputFile(file)) {
            @Override
            protected ReadSupport<Group> getReadSupport() {
                return new GroupReadSupport();
            }
        }.withConf(new PlainParquetConfiguration()).build()) {
            Group group;
            while ((group = reader.read()) != null) {
                rows.add(row(group, schema));
            }
        }
        return rows;
    }

    /** The file's footer: its schema, row groups and their column chunks' codecs. */
    public static ParquetMetadata footer(Path file) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            return reader.getFooter();
        }
    }

    private static Row row(Group group, Schema schema) {
        Object[] values = new Object[schema.size()];
        for (int i = 0; i < values.length; i++) {
            Field field = schema.field(i);
            values[i] = group.getFieldRepetitionCount(i) == 0 ? null : value(group, i, field.type());
        }
        return Row.of(schema, values);
    }

    private static Object value(Group group, int field, DataType type) {
        return switch (type.kind()) {
            case BOOLEAN -> group.getBoolean(field, 0);
            case INT -> group.getInteger(field, 0);
            case LONG -> group.getLong(field, 0);
            case FLOAT -> group.getFloat(field, 0);
            case DOUBLE -> group.getDouble(field, 0);
            case DECIMAL -> type.precision() <= 9 ? BigDecimal.valueOf(group.getInteger(field, 0), type.scale())
                    : type.precision() <= 18 ? BigDecimal.valueOf(group.getLong(field, 0), type.scale())
                    : new BigDecimal(new BigInteger(group.getBinary(field, 0).getBytes()), type.scale());
            case STRING -> group.getBinary(field, 0).toStringUsingUTF8();
            case BYTES -> group.getBinary(field, 0).getBytes();
            case DATE -> LocalDate.ofEpochDay(group.getInteger(field, 0));
            case TIME -> LocalTime.ofNanoOfDay(group.getLong(field, 0) * 1_000);
            case TIMESTAMP -> {
                long micros = group.getLong(field, 0);
                yield LocalDateTime.ofEpochSecond(Math.floorDiv(micros, MICROS_PER_SECOND),
                        (int) Math.floorMod(micros, MICROS_PER_SECOND) * 1_000, ZoneOffset.UTC);
            }
            case TIMESTAMP_TZ -> {
                long micros = group.getLong(field, 0);
                yield Instant.ofEpochSecond(Math.floorDiv(micros, MICROS_PER_SECOND),
                        Math.floorMod(micros, MICROS_PER_SECOND) * 1_000);
            }
            case ROW -> row(group.getGroup(field, 0), type.schema());
            case ARRAY -> {
                Group list = group.getGroup(field, 0);
                List<Object> elements = new ArrayList<>();
                for (int i = 0; i < list.getFieldRepetitionCount(0); i++) {
                    Group element = list.getGroup(0, i);
                    elements.add(element.getFieldRepetitionCount(0) == 0 ? null : value(element, 0, type.elementType()));
                }
                yield elements;
            }
            case MAP -> {
                Group map = group.getGroup(field, 0);
                Map<Object, Object> entries = new LinkedHashMap<>();
                for (int i = 0; i < map.getFieldRepetitionCount(0); i++) {
                    Group entry = map.getGroup(0, i);
                    entries.put(value(entry, 0, type.keyType()),
                            entry.getFieldRepetitionCount(1) == 0 ? null : value(entry, 1, type.valueType()));
                }
                yield entries;
            }
        };
    }
}
