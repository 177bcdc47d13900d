package dev.onceflow.format.avro;

import org.apache.avro.Conversion;
import org.apache.avro.LogicalType;
import org.apache.avro.generic.GenericData;

/**
 * Avro's generic data model without logical-type conversions: dates, times, timestamps and
 * decimals stay ints, longs and bytes, which the encoder and decoder convert themselves. Avro loads
 * conversions that any jar on the class path lists as services; this ignores them, so what a value
 * becomes never depends on which plugins are installed.
 */
final class RawGenericData extends GenericData {

    @Override
    public <T> Conversion<T> getConversionFor(LogicalType logicalType) {
        return null;
    }

    @Override
    public <T> Conversion<T> getConversionByClass(Class<T> datumClass, LogicalType logicalType) {
        return null;
    }
}
