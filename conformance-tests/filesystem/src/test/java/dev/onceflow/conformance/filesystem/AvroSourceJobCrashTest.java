package dev.onceflow.conformance.filesystem;

import dev.onceflow.format.avro.AvroFormatFactory;
import dev.onceflow.spi.format.FormatFactory;
import java.util.Map;

/** {@link WholeFileSourceJobCrashTest} on Avro container files of many blocks (snappy, the default). */
class AvroSourceJobCrashTest extends WholeFileSourceJobCrashTest {

    @Override
    FormatFactory format() {
        return new AvroFormatFactory();
    }

    @Override
    Map<String, String> writerOptions() {
        return Map.of();
    }

    @Override
    String missingPriceField() {
        return "field 'price': not in the file, whose fields are \\[id, flag, ";
    }
}
