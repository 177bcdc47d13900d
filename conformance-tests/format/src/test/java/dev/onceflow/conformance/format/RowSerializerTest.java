package dev.onceflow.conformance.format;

import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowSerializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RowSerializerTest {

    private final RowSerializer serializer = RowSerializer.of(TestRows.EVERY_TYPE);

    @Test
    void everyTypeRoundTripsWithNullsUnicodeAndExtremes() throws IOException {
        for (Row row : List.of(TestRows.full(1), TestRows.nulls(2), TestRows.extremes(3))) {
            assertThat(serializer.deserialize(serializer.version(), serializer.serialize(row))).isEqualTo(row);
        }
    }

    @Test
    void corruptOrTruncatedBytesAreAnIOExceptionNeverGarbage() throws IOException {
        byte[] bytes = serializer.serialize(TestRows.full(1));

        for (int cut = 0; cut < bytes.length; cut++) {
            byte[] truncated = Arrays.copyOf(bytes, cut);
            assertThatThrownBy(() -> serializer.deserialize(1, truncated)).as("cut at %d", cut)
                    .isInstanceOf(IOException.class);
        }
        byte[] badMarker = bytes.clone();
        badMarker[8] = 7; // the null marker of "flag", after the key's eight bytes (a key is not null: no marker)
        assertThatThrownBy(() -> serializer.deserialize(1, badMarker)).isInstanceOf(IOException.class)
                .hasMessage("corrupt row: null marker 7 in field 'flag'");
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> serializer.deserialize(1, longer)).isInstanceOf(IOException.class)
                .hasMessageContaining("trailing bytes");
        assertThatThrownBy(() -> serializer.deserialize(2, bytes)).isInstanceOf(IOException.class)
                .hasMessageContaining("version 2");
    }

    @Test
    void aRowOfAnotherSchemaIsRefused() {
        Row other = Row.of(TestRows.ITEM, "sku", 1);

        assertThatThrownBy(() -> serializer.serialize(other)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("a row of row<sku string not null, qty int> given to the serializer of");
    }
}
