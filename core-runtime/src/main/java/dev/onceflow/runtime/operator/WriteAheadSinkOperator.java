package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.runtime.state.VersionedValues;
import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.WriteAheadWriter;
import java.io.DataInputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Drives a {@link GenericWriteAheadSink}: records are buffered until the barrier, kept in the
 * checkpoint as a segment of the write-ahead log, and sent only after that checkpoint completes,
 * unless the committer says the segment was sent before (rules WAL-1 to WAL-3).
 */
public final class WriteAheadSinkOperator<IN> extends StreamOperator<IN> {

    static final String SEGMENTS = "segments";

    private final GenericWriteAheadSink<IN> sink;
    private final SimpleVersionedSerializer<IN> serializer;
    /** Segments waiting for their checkpoint to complete, keyed by (checkpoint id, former subtask). */
    private final TreeMap<SegmentKey, Segment<IN>> pending = new TreeMap<>();
    private List<IN> buffer = new ArrayList<>();
    private WriteAheadWriter<IN> writer;
    private CheckpointCommitter committer;

    public WriteAheadSinkOperator(GenericWriteAheadSink<IN> sink) {
        this.sink = sink;
        this.serializer = sink.recordSerializer();
    }

    @Override
    public void initializeState(RestoredState state) throws Exception {
        var sinkContext = SinkContexts.of(context, state);
        writer = sink.createWriter(sinkContext);
        committer = sink.createCommitter(sinkContext);
        committer.open();
        for (byte[] bytes : state.subtaskList(SEGMENTS)) {
            Segment<IN> segment = decode(bytes);
            pending.put(new SegmentKey(segment.checkpointId(), segment.subtask()), segment);
        }
        // Every restored segment belongs to a completed checkpoint: send what was not sent yet.
        if (state.checkpointId().isPresent()) {
            sendUpTo(state.checkpointId().getAsLong());
        }
    }

    @Override
    public void processElement(IN record) {
        buffer.add(record);
    }

    @Override
    public void prepareSnapshotPreBarrier(CheckpointBarrier barrier) {
        if (!buffer.isEmpty()) {
            pending.put(new SegmentKey(barrier.checkpointId(), context.subtaskIndex()),
                    new Segment<>(context.subtaskIndex(), barrier.checkpointId(), barrier.timestamp(), buffer));
            buffer = new ArrayList<>();
        }
    }

    @Override
    public OperatorSnapshot snapshotState(long checkpointId) throws Exception {
        List<byte[]> segments = new ArrayList<>(pending.size());
        for (Segment<IN> segment : pending.values()) {
            segments.add(encode(segment));
        }
        return new OperatorSnapshot(Map.of(), Map.of(SEGMENTS, segments), new TreeMap<>());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        sendUpTo(checkpointId);
    }

    private void sendUpTo(long checkpointId) throws Exception {
        Iterator<Segment<IN>> it = pending.headMap(new SegmentKey(checkpointId, Integer.MAX_VALUE), true).values().iterator();
        while (it.hasNext()) {
            Segment<IN> segment = it.next();
            if (!committer.isCheckpointCommitted(segment.subtask(), segment.checkpointId())) {
                if (!writer.sendValues(FaultPoints.sending(segment.records()), segment.subtask(), segment.checkpointId(),
                        segment.timestamp())) {
                    return; // rule WAL-1: keep it, and everything after it, for the next completion
                }
                FaultPoints.reach(FaultPoints.SINK_WAL_AFTER_SEND);
                committer.commitCheckpoint(segment.subtask(), segment.checkpointId());
            }
            it.remove();
        }
    }

    @Override
    public void close() throws Exception {
        try {
            writer.close();
        } finally {
            committer.close();
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

    private byte[] encode(Segment<IN> segment) throws Exception {
        List<byte[]> records = new ArrayList<>(segment.records().size());
        for (IN record : segment.records()) {
            records.add(VersionedValues.write(serializer, record));
        }
        return Serializers.write(out -> {
            out.writeInt(segment.subtask());
            out.writeLong(segment.checkpointId());
            out.writeLong(segment.timestamp());
            out.writeInt(records.size());
            for (byte[] record : records) {
                out.writeInt(record.length);
                out.write(record);
            }
        });
    }

    private Segment<IN> decode(byte[] bytes) throws Exception {
        return Serializers.read(bytes, (DataInputStream in) -> {
            int subtask = in.readInt();
            long checkpointId = in.readLong();
            long timestamp = in.readLong();
            int count = Serializers.readLength(in, "write-ahead segment");
            List<IN> records = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                byte[] record = new byte[Serializers.readLength(in, "write-ahead record")];
                in.readFully(record);
                records.add(VersionedValues.read(serializer, record));
            }
            return new Segment<>(subtask, checkpointId, timestamp, records);
        });
    }

    private record Segment<IN>(int subtask, long checkpointId, long timestamp, List<IN> records) {
    }

    private record SegmentKey(long checkpointId, int subtask) implements Comparable<SegmentKey> {
        @Override
        public int compareTo(SegmentKey other) {
            int byId = Long.compare(checkpointId, other.checkpointId);
            return byId != 0 ? byId : Integer.compare(subtask, other.subtask);
        }
    }
}
