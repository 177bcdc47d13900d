package dev.onceflow.format.avro;

import dev.onceflow.conformance.format.FormatConformanceSuite;
import dev.onceflow.conformance.format.TestRows;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Schema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * The avro format, plain wire format and the Avro schema derived from the row schema, against rules
 * FMT-1 to FMT-4 with every type. The malformed records are written field by field with Avro's
 * own encoder, in the derived schema of {@link TestRows#EVERY_TYPE}: {@code id} a long, then each
 * other field a union of null (index 0) and its type (index 1).
 */
class AvroFormatConformanceTest extends FormatConformanceSuite {

    @Override
    protected FormatFactory factory() {
        return new AvroFormatFactory();
    }

    @Override
    protected List<Malformed> malformedRecords() {
        return List.of(
                new Malformed(new byte[0], "field 'id': the record ends inside a value"),
                new Malformed(withField("flag", e -> e.writeIndex(3)), "field 'flag': "),
                new Malformed(withField("name", e -> {
                    e.writeIndex(1);
                    e.writeLong(-5);
                }), "field 'name': "),
                new Malformed(withField("name", e -> {
                    e.writeIndex(1);
                    e.writeBytes(new byte[] {'a', (byte) 0xC3, '('});
                }), "field 'name': text that is not UTF-8"),
                new Malformed(withField("amount", e -> {
                    e.writeIndex(1);
                    e.writeBytes(BigInteger.TEN.pow(38).toByteArray());
                }), "field 'amount': decimal 10000000000000000000000000000.0000000000 has more than 38 digits"),
                new Malformed(withField("amount", e -> {
                    e.writeIndex(1);
                    e.writeBytes(new byte[0]);
                }), "field 'amount': a decimal of no bytes"),
                new Malformed(withField("at_time", e -> {
                    e.writeIndex(1);
                    e.writeLong(86_400_000_000L);
                }), "field 'at_time': 86400000000 micros is not a time of day"),
                new Malformed(withField("item", e -> {
                    e.writeIndex(1);
                    e.writeString("sku-1");
                    e.writeIndex(2);
                }), "field 'item.qty': "),
                new Malformed(withField("tags", e -> {
                    e.writeIndex(1);
                    e.writeArrayStart();
                    e.setItemCount(1);
                    e.startItem();
                    e.writeIndex(1);
                    e.writeLong(1000);
                }), "field 'tags': the record ends inside a value"),
                new Malformed(withField("counts", e -> {
                    e.writeIndex(1);
                    e.writeMapStart();
                    e.setItemCount(2);
                    e.startItem();
                    e.writeString("a");
                    e.writeIndex(1);
                    e.writeLong(1);
                    e.startItem();
                    e.writeString("a");
                    e.writeIndex(0);
                    e.writeMapEnd();
                }), "field 'counts[a]': map key given twice"),
                new Malformed(append(withField("flag", e -> {
                    e.writeIndex(1);
                    e.writeBoolean(true);
                }), (byte) 1), "bytes are left after the Avro datum"));
    }

    @Override
    protected Optional<Map.Entry<Schema, String>> unrepresentableSchema() {
        return Optional.of(Map.entry(Schema.of(Field.of("id", DataType.LONG),
                Field.of("by_id", DataType.map(DataType.LONG, DataType.STRING))), "by_id"));
    }

    interface Writes {
        void to(BinaryEncoder encoder) throws IOException;
    }

    /**
     * A record of {@link TestRows#EVERY_TYPE} with id 1 and every other field null but {@code field},
     * whose union index and value {@code value} writes, rightly or not.
     */
    static byte[] withField(String field, Writes value) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            encoder.writeLong(1);
            for (Field f : TestRows.EVERY_TYPE.fields().subList(1, TestRows.EVERY_TYPE.size())) {
                if (f.name().equals(field)) {
                    value.to(encoder);
                } else {
                    encoder.writeIndex(0);
                }
            }
            encoder.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    static byte[] append(byte[] bytes, byte extra) {
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        longer[bytes.length] = extra;
        return longer;
    }
}
