package dev.onceflow.connector.datagen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rules SER-1 to SER-3 for the datagen split and enumerator state serializers. */
class DatagenSerializersTest {

    @Test
    void splitRoundTrips() throws Exception {
        DatagenSplit split = new DatagenSplit(3, 4, 4_000_000_007L, Long.MAX_VALUE);
        DatagenSplitSerializer serializer = DatagenSplitSerializer.INSTANCE;

        assertThat(serializer.deserialize(serializer.version(), serializer.serialize(split))).isEqualTo(split);
    }

    @Test
    void enumeratorStateRoundTrips() throws Exception {
        DatagenEnumeratorState state = new DatagenEnumeratorState(
                List.of(new DatagenSplit(1, 4, 1, 100), new DatagenSplit(3, 4, 3, 100)));
        DatagenEnumeratorStateSerializer serializer = DatagenEnumeratorStateSerializer.INSTANCE;

        assertThat(serializer.deserialize(1, serializer.serialize(state))).isEqualTo(state);
        DatagenEnumeratorState empty = new DatagenEnumeratorState(List.of());
        assertThat(serializer.deserialize(1, serializer.serialize(empty))).isEqualTo(empty);
    }

    @Test
    void unknownVersionIsRefusedByName() throws Exception {
        byte[] bytes = DatagenSplitSerializer.INSTANCE.serialize(DatagenSplit.initial(0, 1, 10));

        assertThatThrownBy(() -> DatagenSplitSerializer.INSTANCE.deserialize(2, bytes))
                .isInstanceOf(IOException.class).hasMessageContaining("datagen split").hasMessageContaining("version 2");
    }

    @Test
    void corruptBytesFailInsteadOfRestoringNonsense() throws Exception {
        byte[] bytes = DatagenSplitSerializer.INSTANCE.serialize(DatagenSplit.initial(0, 1, 10));
        // Split index 0 of split count 0 is impossible.
        byte[] zeroSplits = bytes.clone();
        Arrays.fill(zeroSplits, 4, 8, (byte) 0);
        byte[] hugeCount = DatagenEnumeratorStateSerializer.INSTANCE.serialize(
                new DatagenEnumeratorState(List.of(DatagenSplit.initial(0, 1, 10))));
        hugeCount[0] = 0x7f;

        assertThatThrownBy(() -> DatagenSplitSerializer.INSTANCE.deserialize(1, zeroSplits))
                .isInstanceOf(IOException.class).hasMessageContaining("corrupt datagen split");
        assertThatThrownBy(() -> DatagenSplitSerializer.INSTANCE.deserialize(1, Arrays.copyOf(bytes, 30)))
                .isInstanceOf(IOException.class).hasMessageContaining("trailing bytes");
        assertThatThrownBy(() -> DatagenEnumeratorStateSerializer.INSTANCE.deserialize(1, hugeCount))
                .isInstanceOf(IOException.class).hasMessageContaining("corrupt datagen enumerator state");
    }
}
