package dev.onceflow.format.parquet;

import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RandomAccessInput;
import dev.onceflow.spi.format.RowFileReader;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.MessageType;

/**
 * Reads the rows of one Parquet file with Parquet's own reader, as groups of the columns the schema
 * names ({@link ParquetSchemas#requestedSchema}), and turns each group back into the row
 * {@link RowWriteSupport} wrote: the inverse of the type mapping table of docs/formats/parquet.md.
 */
final class ParquetRowFileReader implements RowFileReader {

    private static final long MICROS_PER_SECOND = 1_000_000L;
    private static final int NANOS_PER_MICRO = 1_000;

    private final Schema schema;
    private final ParquetReader<Group> reader;
    private long rowIndex;

    private ParquetRowFileReader(Schema schema, ParquetReader<Group> reader) {
        this.schema = schema;
        this.reader = reader;
    }

    /**
     * Reads the file's footer, matches its columns to {@code schema} and opens the reader.
     *
     * @throws MalformedRecordException naming the first field the file lacks or holds with another type
     * @throws IOException if the input is not a readable Parquet file
     */
    static ParquetRowFileReader open(Schema schema, RandomAccessInput input) throws MalformedRecordException, IOException {
        InputFile file = InputFiles.of(input);
        MessageType fileSchema;
        try (ParquetFileReader footer = ParquetFileReader.open(file)) {
            fileSchema = footer.getFooter().getFileMetaData().getSchema();
        } catch (RuntimeException e) {
            throw new IOException("not a readable Parquet file: " + e.getMessage(), e);
        }
        MessageType requested = ParquetSchemas.requestedSchema(schema, fileSchema);
        ParquetReader<Group> reader = new ParquetReader.Builder<Group>(file) {
            @Override
            protected ReadSupport<Group> getReadSupport() {
                return new ColumnsReadSupport(requested);
            }
        }.withConf(new PlainParquetConfiguration()).build();
        return new ParquetRowFileReader(schema, reader);
    }

    @Override
    public Row next() throws IOException {
        Group group;
        try {
            group = reader.read();
            if (group == null) {
                return null;
            }
            // Parquet reports corrupt pages and values out of Java's range as runtime exceptions.
            return row(group, schema);
        } catch (RuntimeException e) {
            throw new IOException("cannot read row " + rowIndex + ": " + e.getMessage(), e);
        } finally {
            rowIndex++;
        }
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }

    /** The row of {@code group}'s fields named as {@code schema}'s, which the file was checked to hold. */
    private static Row row(Group group, Schema schema) {
        Object[] values = new Object[schema.size()];
        for (int i = 0; i < values.length; i++) {
            Field field = schema.field(i);
            int index = group.getType().getFieldIndex(field.name());
            values[i] = group.getFieldRepetitionCount(index) == 0 ? null : value(group, index, field.type());
        }
        return Row.of(schema, values);
    }

    private static Object value(Group group, int index, DataType type) {
        return switch (type.kind()) {
            case BOOLEAN -> group.getBoolean(index, 0);
            case INT -> group.getInteger(index, 0);
            case LONG -> group.getLong(index, 0);
            case FLOAT -> group.getFloat(index, 0);
            case DOUBLE -> group.getDouble(index, 0);
            case DECIMAL -> decimal(group, index, type);
            case STRING -> group.getBinary(index, 0).toStringUsingUTF8();
            case BYTES -> group.getBinary(index, 0).getBytes();
            case DATE -> LocalDate.ofEpochDay(group.getInteger(index, 0));
            case TIME -> LocalTime.ofNanoOfDay(Math.multiplyExact(group.getLong(index, 0), NANOS_PER_MICRO));
            case TIMESTAMP -> {
                long micros = group.getLong(index, 0);
                yield LocalDateTime.ofEpochSecond(Math.floorDiv(micros, MICROS_PER_SECOND),
                        (int) Math.floorMod(micros, MICROS_PER_SECOND) * NANOS_PER_MICRO, ZoneOffset.UTC);
            }
            case TIMESTAMP_TZ -> {
                long micros = group.getLong(index, 0);
                yield Instant.ofEpochSecond(Math.floorDiv(micros, MICROS_PER_SECOND),
                        Math.floorMod(micros, MICROS_PER_SECOND) * NANOS_PER_MICRO);
            }
            case ROW -> row(group.getGroup(index, 0), type.schema());
            case ARRAY -> list(group.getGroup(index, 0), type.elementType());
            case MAP -> map(group.getGroup(index, 0), type);
        };
    }

    private static BigDecimal decimal(Group group, int index, DataType type) {
        if (type.precision() <= ParquetSchemas.MAX_INT32_DIGITS) {
            return BigDecimal.valueOf(group.getInteger(index, 0), type.scale());
        }
        if (type.precision() <= ParquetSchemas.MAX_INT64_DIGITS) {
            return BigDecimal.valueOf(group.getLong(index, 0), type.scale());
        }
        return new BigDecimal(new BigInteger(group.getBinary(index, 0).getBytes()), type.scale());
    }

    /** The three-level list: a repeated group of one optional or required element each. */
    private static List<Object> list(Group list, DataType elementType) {
        int size = list.getFieldRepetitionCount(0);
        List<Object> elements = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            Group element = list.getGroup(0, i);
            elements.add(element.getFieldRepetitionCount(0) == 0 ? null : value(element, 0, elementType));
        }
        return elements;
    }

    /** The map: a repeated group of a key and an optional or required value each, in the file's order. */
    private static Map<Object, Object> map(Group map, DataType type) {
        int size = map.getFieldRepetitionCount(0);
        Map<Object, Object> entries = new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
            Group entry = map.getGroup(0, i);
            entries.put(value(entry, 0, type.keyType()),
                    entry.getFieldRepetitionCount(1) == 0 ? null : value(entry, 1, type.valueType()));
        }
        return entries;
    }

    /** Parquet's example groups, of the requested columns only. */
    private static final class ColumnsReadSupport extends ReadSupport<Group> {

        private final MessageType requested;

        ColumnsReadSupport(MessageType requested) {
            this.requested = requested;
        }

        @Override
        public ReadContext init(InitContext context) {
            return new ReadContext(requested);
        }

        @Override
        public RecordMaterializer<Group> prepareForRead(Configuration configuration, Map<String, String> metadata,
                MessageType fileSchema, ReadContext context) {
            return new GroupRecordConverter(context.getRequestedSchema());
        }

        @Override
        public RecordMaterializer<Group> prepareForRead(ParquetConfiguration configuration, Map<String, String> metadata,
                MessageType fileSchema, ReadContext context) {
            return new GroupRecordConverter(context.getRequestedSchema());
        }
    }
}
