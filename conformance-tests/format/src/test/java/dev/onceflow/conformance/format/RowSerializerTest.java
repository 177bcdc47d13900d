package dev.onceflow.conformance.format;

import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowKind;
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
    void everyKindRoundTrips() throws IOException {
        for (RowKind kind : RowKind.values()) {
            Row row = TestRows.full(1).withKind(kind);
            Row back = serializer.deserialize(serializer.version(), serializer.serialize(row));
            assertThat(back.kind()).as("kind %s", kind).isEqualTo(kind);
            assertThat(back).isEqualTo(row);
        }
    }

    @Test
    void rowsWrittenBeforeKindsReadAsInserts() throws IOException {
        // version 1 is version 2 without the leading kind byte: what checkpoints and savepoints of
        // builds before changelogs hold (SER-2)
        byte[] current = serializer.serialize(TestRows.full(1));
        byte[] withoutKind = Arrays.copyOfRange(current, 1, current.length);

        Row old = serializer.deserialize(1, withoutKind);

        assertThat(old.kind()).isEqualTo(RowKind.INSERT);
        assertThat(old).isEqualTo(TestRows.full(1));
    }

    @Test
    void corruptOrTruncatedBytesAreAnIOExceptionNeverGarbage() throws IOException {
        int version = serializer.version();
        byte[] bytes = serializer.serialize(TestRows.full(1));

        for (int cut = 0; cut < bytes.length; cut++) {
            byte[] truncated = Arrays.copyOf(bytes, cut);
            assertThatThrownBy(() -> serializer.deserialize(version, truncated)).as("cut at %d", cut)
                    .isInstanceOf(IOException.class);
        }
        byte[] badMarker = bytes.clone();
        badMarker[9] = 7; // the null marker of "flag", after the kind byte and the key's eight bytes (no marker)
        assertThatThrownBy(() -> serializer.deserialize(version, badMarker)).isInstanceOf(IOException.class)
                .hasMessage("corrupt row: null marker 7 in field 'flag'");
        byte[] badKind = bytes.clone();
        badKind[0] = 9;
        assertThatThrownBy(() -> serializer.deserialize(version, badKind)).isInstanceOf(IOException.class)
                .hasMessage("corrupt row: no row kind has the byte 9");
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> serializer.deserialize(version, longer)).isInstanceOf(IOException.class)
                .hasMessageContaining("trailing bytes");
        assertThatThrownBy(() -> serializer.deserialize(3, bytes)).isInstanceOf(IOException.class)
                .hasMessageContaining("version 3");
    }

    @Test
    void aRowOfAnotherSchemaIsRefused() {
        Row other = Row.of(TestRows.ITEM, "sku", 1);

        assertThatThrownBy(() -> serializer.serialize(other)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("a row of row<sku string not null, qty int> given to the serializer of");
    }
}
