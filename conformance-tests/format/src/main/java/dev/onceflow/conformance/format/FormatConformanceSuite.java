package dev.onceflow.conformance.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.format.LineBreaks;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * The format rules of {@code docs/spec.md} (FMT-1 to FMT-4), one test per rule, for any
 * {@link FormatFactory}. A format author extends this class with one fixture: the factory, its
 * options, the schema it represents, and records it must refuse.
 *
 * <pre>
 * class JsonFormatConformanceTest extends FormatConformanceSuite {
 *     protected FormatFactory factory() { return new JsonFormatFactory(); }
 *     protected List&lt;Malformed&gt; malformedRecords() { return List.of(Malformed.text("{\"id\": 1.5}", "field 'id'"), ...); }
 * }
 * </pre>
 *
 * Each failure message names the rule; the rule's section in {@code docs/spec.md} says what to
 * look at.
 */
public abstract class FormatConformanceSuite {

    /** The format under test. */
    protected abstract FormatFactory factory();

    /** Option values for the format, as a job file would give them (default: none). */
    protected Map<String, String> options() {
        return Map.of();
    }

    /**
     * The schema the round trip uses: {@link TestRows#EVERY_TYPE} (default), or a schema of some of
     * its fields, such as {@link TestRows#SCALARS} for a format without nested types.
     */
    protected Schema schema() {
        return TestRows.EVERY_TYPE;
    }

    /**
     * A record that is not a record of {@link #schema()}, and a fragment its error message must
     * contain (typically {@code "field 'name'"}).
     */
    public record Malformed(byte[] bytes, String fragment) {

        /** A record given as UTF-8 text. */
        public static Malformed text(String record, String fragment) {
            return new Malformed(record.getBytes(StandardCharsets.UTF_8), fragment);
        }

        @Override
        public String toString() {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /**
     * Records the decoder must refuse: one for each way a record can be bad in this format, such as
     * something that does not parse, an empty record, a not-null field missing or null, and a value of
     * the wrong type. At least one.
     */
    protected abstract List<Malformed> malformedRecords();

    /** A schema the format cannot represent, and the field its refusal must name; empty if none. */
    protected Optional<Map.Entry<Schema, String>> unrepresentableSchema() {
        return Optional.empty();
    }

    /** The rows of the round trip: {@link TestRows#all()} projected to {@link #schema()}. */
    protected List<Row> rows() {
        return TestRows.projectedTo(schema());
    }

    private OptionValues optionValues() {
        return OptionValues.validate("format '" + factory().identifier() + "'", options(), factory().options());
    }

    private RowEncoder encoder() {
        return factory().createEncoder(schema(), optionValues());
    }

    private RowDecoder decoder() {
        return factory().createDecoder(schema(), optionValues());
    }

    /** FMT-1: every row of every type, nulls and extremes included, decodes to what was encoded. */
    @Test
    public void required_fmt1_everyTypeRoundTrips() throws Exception {
        RowEncoder encoder = encoder();
        RowDecoder decoder = decoder();
        for (Row row : rows()) {
            byte[] bytes = encoder.encode(row);
            assertThat(decoder.decode(bytes)).as("FMT-1: %s decoded from %s", row, text(bytes)).isEqualTo(row);
            // a decoder is handed a slice of a larger buffer by line readers
            byte[] padded = new byte[bytes.length + 6];
            Arrays.fill(padded, (byte) '#');
            System.arraycopy(bytes, 0, padded, 3, bytes.length);
            assertThat(decoder.decode(padded, 3, bytes.length)).as("FMT-1: %s decoded from the middle of a buffer", row)
                    .isEqualTo(row);
        }
    }

    /** FMT-3: equal rows give equal bytes, from one encoder and from two. */
    @Test
    public void required_fmt3_equalRowsEncodeToEqualBytes() {
        RowEncoder first = encoder();
        RowEncoder second = encoder();
        for (Row row : rows()) {
            byte[] bytes = first.encode(row);
            assertThat(first.encode(row)).as("FMT-3: %s encoded twice by one encoder", row).isEqualTo(bytes);
            assertThat(second.encode(Row.of(row.schema(), row.values()))).as("FMT-3: %s by another encoder", row)
                    .isEqualTo(bytes);
        }
    }

    /**
     * FMT-1 for files: records hold line breaks only where {@link FormatFactory#lineBreaks} says,
     * so a line-delimited file splits them back as they were written.
     */
    @Test
    public void required_fmt1_lineBreaksOnlyWhereTheFormatSays() {
        RowEncoder encoder = encoder();
        LineBreaks lineBreaks = factory().lineBreaks(optionValues());
        for (Row row : rows()) {
            String text = text(encoder.encode(row));
            switch (lineBreaks) {
                case NEVER -> assertThat(text).as("FMT-1: lineBreaks() is NEVER but the record of %s holds one", row)
                        .doesNotContain("\n").doesNotContain("\r");
                case QUOTED -> assertThat(unquotedLineBreak(text)).as("FMT-1: lineBreaks() is QUOTED but the record of "
                        + "%s holds a line break outside quotes: %s", row, text).isEqualTo(-1);
                case ANYWHERE -> {
                    // nothing promised
                }
            }
        }
    }

    /** The index of the first line break outside an RFC 4180 quoted field, or -1. */
    static int unquotedLineBreak(String record) {
        boolean quoted = false;
        boolean fieldStart = true;
        for (int i = 0; i < record.length(); i++) {
            char c = record.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < record.length() && record.charAt(i + 1) == '"') {
                    i++;
                } else if (c == '"') {
                    quoted = false;
                }
            } else if (c == '"' && fieldStart) {
                quoted = true;
            } else if (c == '\n' || c == '\r') {
                return i;
            }
            fieldStart = !quoted && (c == ',' || c == ';' || c == '\t');
        }
        return -1;
    }

    /**
     * FMT-2: each malformed record fails with a {@link MalformedRecordException} whose message is
     * one line, contains the expected fragment, and does not quote the whole record.
     */
    @Test
    public void required_fmt2_malformedRecordsAreErrorsNamingTheField() {
        RowDecoder decoder = decoder();
        assertThat(malformedRecords()).as("FMT-2: the fixture gives malformed records").isNotEmpty();
        for (Malformed record : malformedRecords()) {
            MalformedRecordException e = catchThrowableOfType(MalformedRecordException.class,
                    () -> decoder.decode(record.bytes()));
            assertThat(e).as("FMT-2: decoding %s must fail", record).isNotNull();
            assertThat(e.getMessage()).as("FMT-2: the error of %s", record).contains(record.fragment())
                    .doesNotContain("\n");
            if (record.bytes().length > 50) {
                assertThat(e.getMessage()).as("FMT-2: the error of %s quotes the whole record", record)
                        .doesNotContain(record.toString());
            }
        }
    }

    /** FMT-4: a schema the format cannot represent is refused when the decoder or encoder is made. */
    @Test
    public void required_fmt4_unrepresentableSchemaIsRefusedNamingTheField() {
        Optional<Map.Entry<Schema, String>> bad = unrepresentableSchema();
        if (bad.isEmpty()) {
            return;
        }
        Schema schema = bad.get().getKey();
        String field = "'" + bad.get().getValue() + "'";
        assertThatThrownBy(() -> factory().createDecoder(schema, optionValues())).as("FMT-4: decoder for %s", schema)
                .isInstanceOf(OptionException.class).hasMessageContaining(field);
        assertThatThrownBy(() -> factory().createEncoder(schema, optionValues())).as("FMT-4: encoder for %s", schema)
                .isInstanceOf(OptionException.class).hasMessageContaining(field);
    }

    /** The factory is found with {@link ServiceLoader} under its identifier, as job files find it. */
    @Test
    public void required_factoryIsFoundByServiceLoader() {
        assertThat(ServiceLoader.load(FormatFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.getClass() == factory().getClass()).map(FormatFactory::identifier))
                .as("META-INF/services/%s lists %s", FormatFactory.class.getName(), factory().getClass().getName())
                .containsExactly(factory().identifier());
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
