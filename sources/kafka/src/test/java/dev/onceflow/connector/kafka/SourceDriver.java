package dev.onceflow.connector.kafka;

import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.ReaderOutput;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plays the runtime for a {@link KafkaSource} of events or rows on the test thread: the enumerator's assignments and
 * end signals reach a reader before its next poll (as the mailbox does before the next barrier),
 * and checkpoints go through the serializers' bytes. Reading waits on a deadline, never a sleep:
 * a consumer's fetches arrive asynchronously.
 */
// The SPI declares close() throws Exception, which -Xlint:try flags for try-with-resources.
@SuppressWarnings("try")
final class SourceDriver<T> implements AutoCloseable {

    /** What a checkpoint holds of the source, as bytes. */
    record Checkpoint(byte[] enumeratorState, List<byte[]> splits) {
    }

    private final KafkaSource<T> source;
    private final int parallelism;
    private final Map<Integer, List<KafkaSplit>> undelivered = new HashMap<>();
    private final Set<Integer> endSignals = new HashSet<>();
    private final List<Runnable> periodic = new ArrayList<>();
    final SplitEnumerator<KafkaSplit, KafkaEnumeratorState> enumerator;
    final List<SourceReader<T, KafkaSplit>> readers = new ArrayList<>();
    final List<T> output = new ArrayList<>();
    /** The timestamp each record of {@link #output} was emitted with, {@link Long#MIN_VALUE} if none. */
    final List<Long> timestamps = new ArrayList<>();
    private final ReaderOutput<T> collector = new ReaderOutput<>() {
        @Override
        public void collect(T record) {
            collect(record, Long.MIN_VALUE);
        }

        @Override
        public void collect(T record, long timestamp) {
            output.add(record);
            timestamps.add(timestamp);
        }
    };

    private SourceDriver(KafkaSource<T> source, int parallelism, Checkpoint restoreFrom) throws Exception {
        this.source = source;
        this.parallelism = parallelism;
        Context context = new Context();
        enumerator = restoreFrom == null ? source.createEnumerator(context)
                : source.restoreEnumerator(context, source.enumeratorStateSerializer()
                        .deserialize(source.enumeratorStateSerializer().version(), restoreFrom.enumeratorState()));
        enumerator.start();
        for (int i = 0; i < parallelism; i++) {
            int subtask = i;
            SourceReader<T, KafkaSplit> reader = source.createReader(new SourceReaderContext() {
                @Override
                public int subtaskIndex() {
                    return subtask;
                }

                @Override
                public int parallelism() {
                    return parallelism;
                }

                @Override
                public void sendSplitRequest() {
                    enumerator.handleSplitRequest(subtask);
                }
            });
            if (restoreFrom != null) {
                // Restored splits are spread round robin, as on a rescale.
                List<KafkaSplit> mine = new ArrayList<>();
                for (int s = i; s < restoreFrom.splits().size(); s += parallelism) {
                    mine.add(source.splitSerializer().deserialize(source.splitSerializer().version(),
                            restoreFrom.splits().get(s)));
                }
                reader.addSplits(mine);
            }
            readers.add(reader);
            reader.start();
            enumerator.addReader(i);
        }
    }

    static <T> SourceDriver<T> start(KafkaSource<T> source, int parallelism) throws Exception {
        return new SourceDriver<>(source, parallelism, null);
    }

    static <T> SourceDriver<T> restore(KafkaSource<T> source, int parallelism, Checkpoint checkpoint)
            throws Exception {
        return new SourceDriver<>(source, parallelism, checkpoint);
    }

    /** Hands out pending assignments, then polls every reader once; returns their statuses. */
    List<InputStatus> pollOnce() throws Exception {
        List<InputStatus> statuses = new ArrayList<>();
        for (int i = 0; i < readers.size(); i++) {
            List<KafkaSplit> splits = undelivered.remove(i);
            if (splits != null) {
                readers.get(i).addSplits(splits);
            }
            if (endSignals.remove(i)) {
                readers.get(i).notifyNoMoreSplits();
            }
            statuses.add(readers.get(i).pollNext(collector));
        }
        return statuses;
    }

    /** Polls until every reader reports end of input; fails after {@code timeout}. */
    List<T> runToEnd(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!pollOnce().stream().allMatch(s -> s == InputStatus.END_OF_INPUT)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no end of input within " + timeout + " after " + output.size() + " events");
            }
        }
        return output;
    }

    /** Polls until {@code total} events were emitted in all; fails after {@code timeout}. */
    List<T> readUntil(int total, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (output.size() < total) {
            pollOnce();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + output.size() + " of " + total + " events within " + timeout);
            }
        }
        return output;
    }

    /** Runs the enumerator's periodic discovery once, as its timer would. */
    void discover() {
        periodic.forEach(Runnable::run);
    }

    /** The splits of every reader, as {@code snapshotState} returns them. */
    List<KafkaSplit> splits(long checkpointId) throws Exception {
        List<KafkaSplit> splits = new ArrayList<>();
        for (SourceReader<T, KafkaSplit> reader : readers) {
            splits.addAll(reader.snapshotState(checkpointId));
        }
        return splits;
    }

    Checkpoint checkpoint(long checkpointId) throws Exception {
        byte[] state = source.enumeratorStateSerializer().serialize(enumerator.snapshotState(checkpointId));
        List<byte[]> splits = new ArrayList<>();
        for (KafkaSplit split : splits(checkpointId)) {
            splits.add(source.splitSerializer().serialize(split));
        }
        return new Checkpoint(state, splits);
    }

    void notifyCheckpointComplete(long checkpointId) throws Exception {
        for (SourceReader<T, KafkaSplit> reader : readers) {
            reader.notifyCheckpointComplete(checkpointId);
        }
    }

    @Override
    public void close() throws Exception {
        for (SourceReader<T, KafkaSplit> reader : readers) {
            reader.close();
        }
        enumerator.close();
    }

    private final class Context implements SplitEnumeratorContext<KafkaSplit> {
        @Override
        public int parallelism() {
            return parallelism;
        }

        @Override
        public void assignSplits(int subtaskIndex, List<KafkaSplit> splits) {
            undelivered.computeIfAbsent(subtaskIndex, i -> new ArrayList<>()).addAll(splits);
        }

        @Override
        public void signalNoMoreSplits(int subtaskIndex) {
            endSignals.add(subtaskIndex);
        }

        @Override
        public void runPeriodically(Runnable action, Duration period) {
            periodic.add(action);
        }
    }
}
