package dev.onceflow.format.parquet;

import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

/**
 * Hands Onceflow rows to Parquet's record consumer, value by value, as {@link ParquetSchemas}
 * maps their types. A value Parquet's type cannot hold (a time finer than a microsecond, a date or
 * timestamp beyond its range) fails the write naming the field: it is never rounded.
 */
final class RowWriteSupport extends WriteSupport<Row> {

    /** Key of the file's metadata that holds the Onceflow schema the file was written with. */
    static final String SCHEMA_KEY = "onceflow.schema";

    private static final long MICROS_PER_SECOND = 1_000_000L;
    private static final int NANOS_PER_MICRO = 1_000;

    private final MessageType messageType;
    private final Schema schema;
    private RecordConsumer consumer;

    RowWriteSupport(MessageType messageType, Schema schema) {
        this.messageType = messageType;
        this.schema = schema;
    }

    /** Abstract in Parquet, but not called: the writer is built with a {@code ParquetConfiguration}. */
    @Override
    @SuppressWarnings("deprecation")
    public WriteContext init(Configuration configuration) {
        return context();
    }

    @Override
    public WriteContext init(ParquetConfiguration configuration) {
        return context();
    }

    private WriteContext context() {
        return new WriteContext(messageType, Map.of(SCHEMA_KEY, schema.toString()));
    }

    @Override
    public String getName() {
        return "onceflow";
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
        this.consumer = recordConsumer;
    }

    @Override
    public void write(Row row) {
        consumer.startMessage();
        writeFields(row);
        consumer.endMessage();
    }

    private void writeFields(Row row) {
        Schema fields = row.schema();
        for (int i = 0; i < fields.size(); i++) {
            Object value = row.get(i);
            if (value != null) {
                String name = fields.field(i).name();
                consumer.startField(name, i);
                try {
                    writeValue(fields.field(i).type(), value);
                } catch (ValueException e) {
                    throw e.in(name);
                }
                consumer.endField(name, i);
            }
        }
    }

    private void writeValue(DataType type, Object value) {
        switch (type.kind()) {
            case BOOLEAN -> consumer.addBoolean((Boolean) value);
            case INT -> consumer.addInteger((Integer) value);
            case LONG -> consumer.addLong((Long) value);
            case FLOAT -> consumer.addFloat((Float) value);
            case DOUBLE -> consumer.addDouble((Double) value);
            case DECIMAL -> writeDecimal(type, (BigDecimal) value);
            case STRING -> consumer.addBinary(Binary.fromString((String) value));
            // rows' byte arrays are never modified (ROW-1), so Parquet may keep a reference until it encodes them
            case BYTES -> consumer.addBinary(Binary.fromConstantByteArray((byte[]) value));
            case DATE -> consumer.addInteger(epochDay((LocalDate) value));
            case TIME -> consumer.addLong(micros(((LocalTime) value).toNanoOfDay(), value));
            case TIMESTAMP -> {
                LocalDateTime timestamp = (LocalDateTime) value;
                consumer.addLong(epochMicros(timestamp.toEpochSecond(ZoneOffset.UTC), timestamp.getNano(), value));
            }
            case TIMESTAMP_TZ -> {
                Instant instant = (Instant) value;
                consumer.addLong(epochMicros(instant.getEpochSecond(), instant.getNano(), value));
            }
            case ROW -> {
                consumer.startGroup();
                writeFields((Row) value);
                consumer.endGroup();
            }
            case ARRAY -> writeList(type.elementType(), (List<?>) value);
            case MAP -> writeMap(type, (Map<?, ?>) value);
        }
    }

    private void writeDecimal(DataType type, BigDecimal value) {
        // Rows hold decimals of exactly the type's scale and precision (ROW-2): the unscaled value fits.
        BigInteger unscaled = value.unscaledValue();
        if (type.precision() <= ParquetSchemas.MAX_INT32_DIGITS) {
            consumer.addInteger(unscaled.intValueExact());
        } else if (type.precision() <= ParquetSchemas.MAX_INT64_DIGITS) {
            consumer.addLong(unscaled.longValueExact());
        } else {
            consumer.addBinary(Binary.fromConstantByteArray(fixedLength(unscaled,
                    ParquetSchemas.decimalBytes(type.precision()))));
        }
    }

    /** Big-endian two's complement of {@code unscaled}, sign-extended to {@code length} bytes. */
    private static byte[] fixedLength(BigInteger unscaled, int length) {
        byte[] minimal = unscaled.toByteArray();
        byte[] bytes = new byte[length];
        byte fill = (byte) (unscaled.signum() < 0 ? 0xff : 0);
        int pad = length - minimal.length;
        for (int i = 0; i < pad; i++) {
            bytes[i] = fill;
        }
        System.arraycopy(minimal, 0, bytes, pad, minimal.length);
        return bytes;
    }

    private void writeList(DataType elementType, List<?> list) {
        consumer.startGroup();
        if (!list.isEmpty()) {
            consumer.startField(ParquetSchemas.LIST_GROUP, 0);
            int index = 0;
            for (Object element : list) {
                consumer.startGroup();
                if (element != null) {
                    consumer.startField(ParquetSchemas.ELEMENT, 0);
                    try {
                        writeValue(elementType, element);
                    } catch (ValueException e) {
                        throw e.in("[" + index + "]");
                    }
                    consumer.endField(ParquetSchemas.ELEMENT, 0);
                }
                consumer.endGroup();
                index++;
            }
            consumer.endField(ParquetSchemas.LIST_GROUP, 0);
        }
        consumer.endGroup();
    }

    private void writeMap(DataType type, Map<?, ?> map) {
        consumer.startGroup();
        if (!map.isEmpty()) {
            consumer.startField(ParquetSchemas.MAP_GROUP, 0);
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                consumer.startGroup();
                try {
                    consumer.startField(ParquetSchemas.KEY, 0);
                    writeValue(type.keyType(), entry.getKey());
                    consumer.endField(ParquetSchemas.KEY, 0);
                    if (entry.getValue() != null) {
                        consumer.startField(ParquetSchemas.VALUE, 1);
                        writeValue(type.valueType(), entry.getValue());
                        consumer.endField(ParquetSchemas.VALUE, 1);
                    }
                } catch (ValueException e) {
                    throw e.in("[" + entry.getKey() + "]");
                }
                consumer.endGroup();
            }
            consumer.endField(ParquetSchemas.MAP_GROUP, 0);
        }
        consumer.endGroup();
    }

    private static int epochDay(LocalDate date) {
        long day = date.toEpochDay();
        if (day != (int) day) {
            throw new ValueException("date " + date + " is outside the range of a Parquet date (int32 days from 1970-01-01)");
        }
        return (int) day;
    }

    private static long micros(long nanos, Object value) {
        if (nanos % NANOS_PER_MICRO != 0) {
            throw new ValueException(value + " has nanoseconds; Parquet stores microseconds, and it is not rounded");
        }
        return nanos / NANOS_PER_MICRO;
    }

    private static long epochMicros(long epochSecond, int nano, Object value) {
        long micros = micros(nano, value);
        try {
            return Math.addExact(Math.multiplyExact(epochSecond, MICROS_PER_SECOND), micros);
        } catch (ArithmeticException e) {
            throw new ValueException(value + " is outside the range of a Parquet timestamp (int64 microseconds from "
                    + "1970-01-01T00:00:00)");
        }
    }

    /** A value Parquet cannot hold; its message gains the field's path as it passes up the nesting. */
    static final class ValueException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final String path;
        private final String problem;

        ValueException(String problem) {
            this("", problem);
        }

        private ValueException(String path, String problem) {
            super(problem, null, false, false);
            this.path = path;
            this.problem = problem;
        }

        ValueException in(String outer) {
            String joined = path.isEmpty() ? outer : path.startsWith("[") ? outer + path : outer + "." + path;
            return new ValueException(joined, problem);
        }

        @Override
        public String getMessage() {
            return path.isEmpty() ? problem : "field '" + path + "': " + problem;
        }
    }
}
