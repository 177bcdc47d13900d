package dev.onceflow.format.raw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RawFormatTest {

    private final RawFormatFactory factory = new RawFormatFactory();

    private OptionValues options(Map<String, String> raw) {
        return OptionValues.validate("format 'raw'", raw, factory.options());
    }

    @Test
    void theOptionsFixTheSchema() {
        assertThat(factory.schema(options(Map.of()))).contains(Schema.of(Field.of("value", DataType.STRING.notNull())));
        assertThat(factory.schema(options(Map.of("field", "line", "type", "bytes"))))
                .contains(Schema.of(Field.of("line", DataType.BYTES.notNull())));
    }

    @Test
    void bytesAreKeptAsTheyAreAndCopied() throws Exception {
        OptionValues bytes = options(Map.of("type", "bytes"));
        Schema schema = factory.schema(bytes).orElseThrow();
        byte[] record = {0, (byte) 0xFF, 10, 13};

        Row row = factory.createDecoder(schema, bytes).decode(record, 1, 2);
        record[1] = 7;

        assertThat((byte[]) row.get(0)).containsExactly(0xFF, 10);
        assertThat(factory.createEncoder(schema, bytes).encode(row)).containsExactly(0xFF, 10);
    }

    @Test
    void aNullableFieldIsRefusedBecauseARecordIsNeverNull() {
        Schema nullable = Schema.of(Field.of("value", DataType.STRING));

        assertThatThrownBy(() -> factory.createEncoder(nullable, options(Map.of()))).isInstanceOf(OptionException.class)
                .hasMessage("format 'raw': the schema must be one field of type string not null; field 'value' is a string");
    }
}
