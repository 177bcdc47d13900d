package dev.onceflow.runtime.task;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.runtime.graph.Transformation;
import dev.onceflow.runtime.operator.TaskTime;
import dev.onceflow.runtime.state.KeyGroups;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Behind a {@code keyBy} each batch carries its records' keys and key groups, which the keyed
 * operator on the other side uses instead of computing them again: they must be exactly what the
 * key selector and {@link KeyGroups#keyGroupOf} give for each record, in the record's position,
 * and the record must be in the channel of the subtask that owns that group.
 */
class RecordWriterTest {

    private static final int MAX_PARALLELISM = 128;
    private static final int BATCH = 16;

    @Test
    void aKeyedChannelCarriesEachRecordsKeyAndKeyGroupBesideIt() throws Exception {
        InputGate[] targets = {new InputGate(1, 1_000), new InputGate(1, 1_000), new InputGate(1, 1_000)};
        RecordWriter writer = new RecordWriter(targets, 0,
                new Transformation.Partitioning.Hash(record -> (Long) record % 1_000), MAX_PARALLELISM, BATCH,
                new TaskTime((delay, action) -> { }));
        for (long id = 0; id < 5_000; id++) {
            writer.emit(id);
        }
        writer.flushAll();

        List<Object> received = new ArrayList<>();
        for (int subtask = 0; subtask < targets.length; subtask++) {
            for (Object item = targets[subtask].take(0); item != null; item = targets[subtask].take(0)) {
                StreamElement.Records batch = (StreamElement.Records) ((InputGate.Polled) item).element();
                for (int i = 0; i < batch.records().size(); i++) {
                    long id = (Long) batch.records().get(i);
                    int group = KeyGroups.keyGroupOf(id % 1_000, MAX_PARALLELISM);
                    assertThat(batch.keys()[i]).as("key of id %d", id).isEqualTo(id % 1_000);
                    assertThat(batch.keyGroups()[i]).as("key group of id %d", id).isEqualTo(group);
                    assertThat(KeyGroups.subtaskOf(group, MAX_PARALLELISM, targets.length)).as("channel of id %d", id)
                            .isEqualTo(subtask);
                    received.add(id);
                }
            }
        }
        assertThat(received).hasSize(5_000).doesNotHaveDuplicates();
    }

    @Test
    void aChannelWithoutKeysCarriesNone() throws Exception {
        InputGate[] targets = {new InputGate(1, 1_000), new InputGate(1, 1_000)};
        RecordWriter writer = new RecordWriter(targets, 0, new Transformation.Partitioning.Rebalance(), MAX_PARALLELISM,
                BATCH, new TaskTime((delay, action) -> { }));
        for (long id = 0; id < 100; id++) {
            writer.emit(id);
        }
        writer.flushAll();
        StreamElement.Records batch = (StreamElement.Records) ((InputGate.Polled) targets[0].take(0)).element();
        assertThat(batch.records()).isNotEmpty();
        assertThat(batch.keys()).isNull();
        assertThat(batch.keyGroups()).isNull();
    }
}
