package dev.onceflow.runtime.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.checkpoint.CheckpointKind;
import dev.onceflow.runtime.graph.Transformation;
import dev.onceflow.runtime.state.KeyGroups;
import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Which records an unaligned checkpoint stores as in flight, and how they come back: per channel,
 * the records its barrier overtook plus those taken before it arrived; on restore, the ones the
 * new subtask owns, by key or by former subtask, in order; malformed entries are refused.
 */
class InFlightRecordsTest {

    private static final int MAX_PARALLELISM = 128;
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static final SimpleVersionedSerializer<Object> STRINGS = (SimpleVersionedSerializer) Serializers.STRING;

    private final AtomicLong stored = new AtomicLong();

    private static StreamElement.Records batch(String... records) {
        long[] timestamps = Arrays.stream(records).mapToLong(r -> r.length() * 10L).toArray();
        return new StreamElement.Records(List.of((Object[]) records), timestamps);
    }

    private static CheckpointBarrier barrier(long id) {
        return new CheckpointBarrier(id, 0, CheckpointKind.CHECKPOINT, false);
    }

    private InFlightRecords rebalanced() {
        return new InFlightRecords("count", STRINGS, new Transformation.Partitioning.Rebalance(), MAX_PARALLELISM,
                stored::addAndGet);
    }

    @SuppressWarnings("unchecked")
    private InFlightRecords byKey() {
        return new InFlightRecords("count", STRINGS,
                new Transformation.Partitioning.Hash(record -> ((String) record).substring(0, 1)), MAX_PARALLELISM,
                stored::addAndGet);
    }

    /** The records of each channel's batches (batches compare by identity of their timestamps). */
    private static List<List<Object>> perChannel(List<List<StreamElement.Records>> channels) {
        return channels.stream().map(batches -> batches.stream().flatMap(b -> b.records().stream()).toList()).toList();
    }

    private static List<Object> records(List<InFlightRecords.Timed> timed) {
        return timed.stream().map(InFlightRecords.Timed::record).toList();
    }

    @Test
    void aChannelsRecordsInFlightAreWhatItsBarrierOvertookAndWhatCameBeforeIt() throws Exception {
        InFlightRecorder recorder = new InFlightRecorder(3);
        List<Long> snapshots = new ArrayList<>();
        recorder.onRecords(1, batch("before the snapshot"));

        recorder.onBarrier(0, barrier(4), List.of(batch("x1", "x2")), b -> snapshots.add(b.checkpointId()));
        CompletableFuture<List<List<StreamElement.Records>>> recorded = recorder.recorded(4);
        recorder.onRecords(0, batch("after the barrier"));
        recorder.onRecords(1, batch("y1"));
        recorder.onRecords(2, batch("z1"));
        recorder.onBarrier(1, barrier(4), List.of(batch("y2")), b -> snapshots.add(b.checkpointId()));
        recorder.onRecords(1, batch("after its barrier"));
        assertThat(recorded).as("channel 2 has not delivered the barrier").isNotDone();
        recorder.onRecords(2, batch("z2"));
        recorder.onEnd(2);

        assertThat(snapshots).as("one snapshot, at the first barrier").containsExactly(4L);
        assertThat(recorded).isDone();
        assertThat(perChannel(recorded.get())).containsExactly(List.of("x1", "x2"), List.of("y1", "y2"),
                List.of("z1", "z2"));
        assertThat(recorder.pendingCount()).isZero();
    }

    @Test
    void anAbortedCheckpointIsNoLongerRecordedAndItsLateBarriersAreIgnored() throws Exception {
        InFlightRecorder recorder = new InFlightRecorder(2);
        List<Long> snapshots = new ArrayList<>();
        recorder.onBarrier(0, barrier(1), List.of(), b -> snapshots.add(b.checkpointId()));
        CompletableFuture<List<List<StreamElement.Records>>> first = recorder.recorded(1);

        recorder.abort(1);
        recorder.onBarrier(1, barrier(1), List.of(batch("late")), b -> snapshots.add(b.checkpointId()));
        recorder.onBarrier(1, barrier(2), List.of(), b -> snapshots.add(b.checkpointId()));
        recorder.onBarrier(0, barrier(2), List.of(), b -> snapshots.add(b.checkpointId()));

        assertThat(first).isCancelled();
        assertThatThrownBy(first::join).isInstanceOf(CancellationException.class);
        assertThat(snapshots).containsExactly(1L, 2L);
        assertThat(recorder.pendingCount()).isZero();
    }

    @Test
    void overlappingCheckpointsEachGetTheRecordsBeforeTheirOwnBarrier() throws Exception {
        InFlightRecorder recorder = new InFlightRecorder(2);
        recorder.onBarrier(0, barrier(1), List.of(), b -> { });
        recorder.onBarrier(0, barrier(2), List.of(), b -> { });
        CompletableFuture<List<List<StreamElement.Records>>> one = recorder.recorded(1);
        CompletableFuture<List<List<StreamElement.Records>>> two = recorder.recorded(2);
        recorder.onRecords(1, batch("r1"));
        recorder.onBarrier(1, barrier(1), List.of(batch("r2")), b -> { });
        recorder.onRecords(1, batch("r3"));
        recorder.onBarrier(1, barrier(2), List.of(), b -> { });

        assertThat(perChannel(one.get()).get(1)).containsExactly("r1", "r2");
        assertThat(perChannel(two.get()).get(1)).containsExactly("r1", "r3");
    }

    @Test
    void atTheSameParallelismEverySubtaskGetsBackExactlyItsOwnRecordsInOrder() throws Exception {
        InFlightRecords codec = rebalanced();
        List<byte[]> entries = new ArrayList<>();
        entries.addAll(codec.encode(0, List.of(List.of(batch("a", "bb")), List.of(), List.of(batch("ccc")))));
        entries.addAll(codec.encode(1, List.of(List.of(batch("d")), List.of(batch("e", "f")), List.of())));

        assertThat(stored).hasValue(6);
        assertThat(entries).as("one entry per channel with records").hasSize(4);
        List<InFlightRecords.Timed> zero = codec.decode(entries, 0, 2);
        assertThat(records(zero)).containsExactly("a", "bb", "ccc");
        assertThat(zero).extracting(InFlightRecords.Timed::timestamp).containsExactly(10L, 20L, 30L);
        assertThat(records(codec.decode(entries, 1, 2))).containsExactly("d", "e", "f");
        assertThat(records(codec.decode(entries, 0, 1))).as("one subtask takes over both")
                .containsExactly("a", "bb", "ccc", "d", "e", "f");
    }

    @Test
    void recordsPartitionedByKeyGoToTheSubtaskThatOwnsTheirKeyAtTheNewParallelism() throws Exception {
        InFlightRecords codec = byKey();
        List<String> all = IntStream.range(0, 200).mapToObj(i -> (char) ('a' + i % 26) + "-" + i).toList();
        List<byte[]> entries = codec.encode(0, List.of(List.of(batch(all.subList(0, 120).toArray(String[]::new))),
                List.of(batch(all.subList(120, 200).toArray(String[]::new)))));

        List<Object> seen = new ArrayList<>();
        for (int subtask = 0; subtask < 3; subtask++) {
            for (Object record : records(codec.decode(entries, subtask, 3))) {
                String key = ((String) record).substring(0, 1);
                assertThat(KeyGroups.subtaskOf(KeyGroups.keyGroupOf(key, MAX_PARALLELISM), MAX_PARALLELISM, 3))
                        .as("owner of %s", record).isEqualTo(subtask);
                seen.add(record);
            }
        }
        assertThat(seen).as("every record exactly once").containsExactlyInAnyOrderElementsOf(all);
    }

    @Test
    void malformedEntriesAreRefusedNamingTheStage() throws Exception {
        InFlightRecords codec = rebalanced();
        byte[] good = codec.encode(0, List.of(List.of(batch("abc", "de")))).get(0);

        assertThatThrownBy(() -> codec.decode(List.of(Arrays.copyOf(good, good.length - 1)), 0, 1))
                .isInstanceOf(IOException.class).hasMessageContaining("in flight into count")
                .hasMessageContaining("claims");
        byte[] trailing = Arrays.copyOf(good, good.length + 3);
        assertThatThrownBy(() -> codec.decode(List.of(trailing), 0, 1))
                .isInstanceOf(IOException.class).hasMessageContaining("3 bytes follow the last record");
        byte[] format = good.clone();
        format[3] = 9;
        assertThatThrownBy(() -> codec.decode(List.of(format), 0, 1))
                .isInstanceOf(IOException.class).hasMessageContaining("format 9");
        byte[] count = good.clone();
        count[19] = 100;
        assertThatThrownBy(() -> codec.decode(List.of(count), 0, 1))
                .isInstanceOf(IOException.class).hasMessageContaining("claims 100 records");
        assertThatThrownBy(() -> codec.decode(List.of(new byte[7]), 0, 1))
                .isInstanceOf(IOException.class).hasMessageContaining("shorter than its header");
    }
}
