package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.api.DeadLetters;
import dev.onceflow.runtime.api.WatermarkStrategy;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.runtime.state.VersionedValues;
import dev.onceflow.runtime.task.StreamElement;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.ReaderOutput;
import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import dev.onceflow.spi.source.SourceSplit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hosts one {@link SourceReader}: restores its splits, polls it, snapshots its split positions.
 * Splits are list state, so they spread over the readers when the parallelism changes.
 *
 * <p>It also gives records their timestamps and emits this subtask's watermarks and idleness as
 * the job's {@link WatermarkStrategy} says, from the highest timestamp emitted so far.
 */
public final class SourceOperator<T, SplitT extends SourceSplit> extends StreamOperator<Void> {

    private static final Logger LOG = LoggerFactory.getLogger(SourceOperator.class);

    static final String SPLITS = "splits";

    private final ReplayableSource<T, SplitT, ?> source;
    private final WatermarkStrategy<T> watermarks;
    private final WatermarkStrategy.TimestampAssigner<T> assigner;
    private final long outOfOrderness;
    private final long intervalNanos;
    private final long idlenessNanos;
    private final ReaderOutput<T> readerOutput = new ReaderOutput<>() {
        @Override
        public void collect(T record) {
            emit(record, StreamElement.NO_TIMESTAMP);
        }

        @Override
        public void collect(T record, long timestamp) {
            emit(record, timestamp);
        }

        @Override
        public void reject(String position, byte[] record, String reason) throws IOException {
            if (deadLetters == null) {
                ReaderOutput.super.reject(position, record, reason);
                return;
            }
            rejected(position, record, reason);
        }
    };
    /** Where rejected records go (SRC-6), or null: then a rejected record fails the job. */
    private DeadLetterOutput deadLetters;
    private boolean rejectedBefore;
    private SourceReader<T, SplitT> reader;
    private TaskTime time;
    private long highestTimestamp = StreamElement.NO_TIMESTAMP;
    private long lastWatermark = StreamElement.NO_TIMESTAMP;
    private long nextCheckNanos;
    private long lastActiveNanos;
    private boolean emittedSinceCheck;
    private boolean idle;

    public SourceOperator(ReplayableSource<T, SplitT, ?> source, WatermarkStrategy<T> watermarks) {
        this.source = source;
        this.watermarks = watermarks;
        this.assigner = watermarks.assigner();
        this.outOfOrderness = watermarks.emitsWatermarks() ? watermarks.outOfOrderness().toMillis() : 0;
        this.intervalNanos = watermarks.interval().toNanos();
        this.idlenessNanos = watermarks.idleness().toNanos();
    }

    @Override
    public void initializeState(RestoredState state) throws Exception {
        reader = source.createReader(new SourceReaderContext() {
            @Override
            public int subtaskIndex() {
                return context.subtaskIndex();
            }

            @Override
            public int parallelism() {
                return context.parallelism();
            }

            @Override
            public void sendSplitRequest() {
                context.taskServices().requestSplit(context.uid(), context.subtaskIndex());
            }
        });
        List<SplitT> restored = new ArrayList<>();
        for (byte[] bytes : state.list(SPLITS)) {
            restored.add(VersionedValues.read(source.splitSerializer(), bytes));
        }
        if (!restored.isEmpty()) {
            reader.addSplits(restored);
        }
    }

    @Override
    public void open() throws Exception {
        time = context.time();
        lastActiveNanos = System.nanoTime();
        nextCheckNanos = lastActiveNanos + intervalNanos;
        reader.start();
        context.taskServices().registerReader(context.uid(), context.subtaskIndex());
    }

    /** Receives the dead-letter rows of the records this operator's reader rejects. */
    @FunctionalInterface
    public interface DeadLetterOutput {
        void write(Row deadLetter) throws Exception;
    }

    /**
     * Sends the records the reader rejects to {@code output} as {@link DeadLetters} rows, instead
     * of failing the job. Called once, before {@link #open()}.
     */
    public void sendDeadLettersTo(DeadLetterOutput output) {
        this.deadLetters = output;
    }

    private void rejected(String position, byte[] record, String reason) throws IOException {
        if (!rejectedBefore) {
            rejectedBefore = true;
            LOG.warn("{} subtask {}: could not read the record at {}: {}; it goes to the dead letters, and so do the "
                    + "ones that follow, counted as the records received by the dead-letter sink", context.uid(),
                    context.subtaskIndex(), position, reason);
        }
        try {
            deadLetters.write(DeadLetters.of(context.uid(), position, reason, record));
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("the dead-letter sink could not take the record at " + position + ": " + e, e);
        }
    }

    /** Emits the reader's next records to the chain. */
    public InputStatus pollNext() throws Exception {
        return reader.pollNext(readerOutput);
    }

    private void emit(T record, long sourceTimestamp) {
        long timestamp = assigner == null ? sourceTimestamp : assigner.extractTimestamp(record, sourceTimestamp);
        if (idle) {
            idle = false;
            output.emitWatermarkStatus(false);
        }
        emittedSinceCheck = true;
        if (timestamp > highestTimestamp) {
            highestTimestamp = timestamp;
        }
        time.setTimestamp(timestamp);
        output.collect(record);
    }

    /**
     * Called by the task between polls: once per {@link WatermarkStrategy#interval()}, emits a
     * watermark if event time advanced, and the idle status if nothing was emitted for the
     * strategy's idleness.
     */
    public void onPeriodicCheck(long nowNanos) {
        if (nowNanos - nextCheckNanos < 0) {
            return;
        }
        nextCheckNanos = nowNanos + intervalNanos;
        if (emittedSinceCheck) {
            emittedSinceCheck = false;
            lastActiveNanos = nowNanos;
        }
        if (watermarks.emitsWatermarks() && highestTimestamp != StreamElement.NO_TIMESTAMP) {
            // Saturating: a timestamp near Long.MIN_VALUE must not wrap around to the end of time.
            long watermark = highestTimestamp - outOfOrderness - 1;
            if (watermark > highestTimestamp) {
                watermark = StreamElement.NO_TIMESTAMP;
            }
            emitWatermark(watermark);
        }
        if (idlenessNanos > 0 && !idle && nowNanos - lastActiveNanos >= idlenessNanos) {
            idle = true;
            output.emitWatermarkStatus(true);
        }
    }

    /** The reader reached the end of its input: event time jumps to the end, so every event-time timer fires. */
    public void endOfInput() {
        if (idle) {
            idle = false;
            output.emitWatermarkStatus(false);
        }
        emitWatermark(Long.MAX_VALUE);
    }

    private void emitWatermark(long watermark) {
        if (watermark > lastWatermark) {
            lastWatermark = watermark;
            output.emitWatermark(watermark);
        }
    }

    public void addSplits(List<SplitT> splits) {
        reader.addSplits(splits);
    }

    public void notifyNoMoreSplits() {
        reader.notifyNoMoreSplits();
    }

    @Override
    public void processElement(Void record) {
        throw new UnsupportedOperationException("a source has no input");
    }

    @Override
    public OperatorSnapshot snapshotState(long checkpointId) throws Exception {
        List<byte[]> splits = new ArrayList<>();
        for (SplitT split : reader.snapshotState(checkpointId)) {
            splits.add(VersionedValues.write(source.splitSerializer(), split));
        }
        return new OperatorSnapshot(Map.of(SPLITS, splits), Map.of(), new TreeMap<>());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        reader.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        reader.notifyCheckpointAborted(checkpointId);
    }

    @Override
    public void close() throws Exception {
        if (reader != null) {
            reader.close();
        }
    }

    @Override
    public void cancel() {
        try {
            close();
        } catch (Exception ignored) {
            // the job is failing already
        }
    }
}
