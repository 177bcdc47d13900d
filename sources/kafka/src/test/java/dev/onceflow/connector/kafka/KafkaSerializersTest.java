package dev.onceflow.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** SER-1 to SER-3 for the split and enumerator-state serializers. */
class KafkaSerializersTest {

    private final KafkaSplit bounded = new KafkaSplit("ördërs", 3, 42, 100);
    private final KafkaSplit unbounded = new KafkaSplit("t", 0, 0, KafkaSplit.UNBOUNDED);

    @Test
    void splitsRoundTrip() throws IOException {
        for (KafkaSplit split : List.of(bounded, unbounded)) {
            byte[] bytes = KafkaSplitSerializer.INSTANCE.serialize(split);
            assertThat(KafkaSplitSerializer.INSTANCE.deserialize(1, bytes)).isEqualTo(split);
        }
    }

    @Test
    void enumeratorStateRoundTripsAndEqualStatesGiveEqualBytes() throws IOException {
        Set<TopicPartition> discovered = Set.of(new TopicPartition("b", 1), new TopicPartition("a", 0),
                new TopicPartition("a", 2));
        KafkaEnumeratorState state = new KafkaEnumeratorState(List.of(bounded, unbounded), discovered);

        byte[] bytes = KafkaEnumeratorStateSerializer.INSTANCE.serialize(state);

        assertThat(KafkaEnumeratorStateSerializer.INSTANCE.deserialize(1, bytes)).isEqualTo(state);
        assertThat(KafkaEnumeratorStateSerializer.INSTANCE.serialize(
                new KafkaEnumeratorState(List.of(bounded, unbounded), Set.copyOf(discovered)))).isEqualTo(bytes);
    }

    @Test
    void unknownVersionsAndCorruptBytesFailByName() throws IOException {
        byte[] split = KafkaSplitSerializer.INSTANCE.serialize(bounded);
        assertThatThrownBy(() -> KafkaSplitSerializer.INSTANCE.deserialize(2, split))
                .isInstanceOf(IOException.class).hasMessageContaining("version 2");
        assertThatThrownBy(() -> KafkaSplitSerializer.INSTANCE.deserialize(1, Arrays.copyOf(split, split.length + 1)))
                .isInstanceOf(IOException.class).hasMessageContaining("trailing bytes");

        byte[] negativeOffset = KafkaSplitSerializer.INSTANCE.serialize(bounded);
        int offsetAt = negativeOffset.length - 16;
        Arrays.fill(negativeOffset, offsetAt, offsetAt + 8, (byte) 0xFF);
        assertThatThrownBy(() -> KafkaSplitSerializer.INSTANCE.deserialize(1, negativeOffset))
                .isInstanceOf(IOException.class).hasMessageStartingWith("corrupt kafka split: negative offset -1");

        byte[] hugeCount = {0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
        assertThatThrownBy(() -> KafkaEnumeratorStateSerializer.INSTANCE.deserialize(1, hugeCount))
                .isInstanceOf(IOException.class).hasMessageContaining("unassigned splits");
    }

    @Test
    void aSplitPositionCannotBeSymbolic() {
        assertThatThrownBy(() -> new KafkaSplit("t", 0, -1, KafkaSplit.UNBOUNDED))
                .hasMessage("negative offset -1 for t-0: a split position must be a concrete offset");
    }
}
