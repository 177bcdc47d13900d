package dev.onceflow.format.avro;

import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;

/**
 * Reads Avro container files back with Avro's own {@link DataFileReader} and Avro's own logical-type
 * conversions (decimal, date, time-micros, timestamps), not with anything of the format's, and
 * turns its records into rows of the schema the file was written with, for tests to compare with
 * exact values.
 */
public final class AvroFiles {

    private AvroFiles() {
    }

    /** Avro's generic model with its standard conversions: a decimal is a BigDecimal, a date a LocalDate. */
    public static GenericData withConversions() {
        GenericData data = new GenericData();
        data.addLogicalTypeConversion(new Conversions.DecimalConversion());
        data.addLogicalTypeConversion(new TimeConversions.DateConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimeMicrosConversion());
        data.addLogicalTypeConversion(new TimeConversions.LocalTimestampMicrosConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
        return data;
    }

    /** Every record of the file, in order, as Avro's generic records with conversions applied. */
    public static List<GenericRecord> records(Path file) throws IOException {
        List<GenericRecord> records = new ArrayList<>();
        try (DataFileReader<GenericRecord> reader = new DataFileReader<>(file.toFile(),
                new GenericDatumReader<>(null, null, withConversions()))) {
            while (reader.hasNext()) {
                records.add(reader.next());
            }
        }
        return records;
    }

    /** The codec named in the file's header, such as {@code "snappy"}. */
    public static String codec(Path file) throws IOException {
        try (DataFileReader<GenericRecord> reader = new DataFileReader<>(file.toFile(), new GenericDatumReader<>())) {
            return reader.getMetaString("avro.codec");
        }
    }

    /** Every row of the file, in order. */
    public static List<Row> read(Path file, Schema schema) throws IOException {
        return records(file).stream().map(record -> row(record, schema)).toList();
    }

    private static Row row(GenericRecord record, Schema schema) {
        Object[] values = new Object[schema.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = value(record.get(schema.field(i).name()), schema.field(i).type());
        }
        return Row.of(schema, values);
    }

    private static Object value(Object avro, DataType type) {
        if (avro == null) {
            return null;
        }
        return switch (type.kind()) {
            case STRING -> avro.toString();
            case BYTES -> {
                ByteBuffer buffer = ((ByteBuffer) avro).duplicate();
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                yield bytes;
            }
            case ROW -> row((GenericRecord) avro, type.schema());
            case ARRAY -> {
                List<Object> list = new ArrayList<>();
                for (Object element : (Collection<?>) avro) {
                    list.add(value(element, type.elementType()));
                }
                yield list;
            }
            case MAP -> {
                Map<Object, Object> map = new LinkedHashMap<>();
                ((Map<?, ?>) avro).forEach((k, v) -> map.put(k.toString(), value(v, type.valueType())));
                yield map;
            }
            default -> avro; // booleans, numbers, and what Avro's conversions made: BigDecimal, LocalDate, ...
        };
    }
}
