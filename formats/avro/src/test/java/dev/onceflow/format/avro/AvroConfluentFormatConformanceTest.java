package dev.onceflow.format.avro;

import dev.onceflow.conformance.format.FormatConformanceSuite;
import dev.onceflow.spi.format.FormatFactory;
import java.util.List;
import java.util.Map;

/** The avro format in Confluent's wire format against rules FMT-1 to FMT-4: the header is the difference. */
class AvroConfluentFormatConformanceTest extends FormatConformanceSuite {

    @Override
    protected FormatFactory factory() {
        return new AvroFormatFactory();
    }

    @Override
    protected Map<String, String> options() {
        return Map.of("wire-format", "confluent", "schema-id", "7");
    }

    @Override
    protected List<Malformed> malformedRecords() {
        byte[] body = AvroFormatConformanceTest.withField("flag", e -> e.writeIndex(0));
        byte[] record = new byte[5 + body.length];
        record[4] = 7;
        System.arraycopy(body, 0, record, 5, body.length);
        byte[] wrongMagic = record.clone();
        wrongMagic[0] = 1;
        byte[] wrongId = record.clone();
        wrongId[4] = 8;
        return List.of(
                new Malformed(new byte[0], "a record of 0 bytes is shorter than the 5-byte header"),
                new Malformed(new byte[] {0, 0, 0}, "a record of 3 bytes is shorter than the 5-byte header"),
                new Malformed(wrongMagic, "the record starts with byte 0x01, not the magic byte 0x00"),
                new Malformed(wrongId, "the record carries schema id 8, but option 'schema-id' is 7"),
                new Malformed(new byte[] {0, 0, 0, 0, 7}, "field 'id': the record ends inside a value"),
                new Malformed(body, "the record starts with byte 0x02"));
    }
}
