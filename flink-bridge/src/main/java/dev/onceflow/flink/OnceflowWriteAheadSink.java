package dev.onceflow.flink;

import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.WriteAheadWriter;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Any Onceflow {@link GenericWriteAheadSink} as a Flink sink with a committer. The write-ahead log
 * is Flink's committable: at every barrier the writer hands the records since the previous one to
 * Flink as a {@link Segment}, which Flink keeps in its checkpoint; once the checkpoint completed,
 * the committer sends the segment ({@code sendValues}) unless the sink's {@link CheckpointCommitter}
 * says it was sent before (WAL-2), then records it. After a recovery Flink hands the committer its
 * restored segments again, and the checkpoint committer skips those already sent.
 *
 * <p>A segment is numbered per writer: the restored checkpoint id plus one for the first barrier
 * after a (re)start, plus one for each barrier since. A segment is sent only after the Flink
 * checkpoint that holds it completed, so every sent number is at most the latest completed
 * checkpoint id, and the segments of a restarted writer, numbered after the restored checkpoint,
 * never reuse the number of a segment that was sent.
 */
public final class OnceflowWriteAheadSink<IN> implements Sink<IN>, SupportsCommitter<OnceflowWriteAheadSink.Segment<IN>> {

    private static final long serialVersionUID = 1L;

    private final SerializableSupplier<? extends GenericWriteAheadSink<IN>> factory;
    private final SinkContexts contexts;
    private transient GenericWriteAheadSink<IN> sink;

    private OnceflowWriteAheadSink(SerializableSupplier<? extends GenericWriteAheadSink<IN>> factory,
            SinkContexts contexts) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.contexts = contexts;
    }

    /**
     * A Flink sink that builds its Onceflow sink with {@code factory} wherever Flink runs it.
     *
     * @param sinkUid stable identity of the sink; the checkpoint committer's records are keyed by it
     */
    public static <IN> OnceflowWriteAheadSink<IN> of(SerializableSupplier<? extends GenericWriteAheadSink<IN>> factory,
            String sinkUid) {
        return new OnceflowWriteAheadSink<>(factory, new SinkContexts(sinkUid, null, 1));
    }

    /** Keys the checkpoint committer's records by {@code name} instead of the Flink job's name. */
    public OnceflowWriteAheadSink<IN> withJobName(String name) {
        return new OnceflowWriteAheadSink<>(factory, contexts.withJobName(name));
    }

    private GenericWriteAheadSink<IN> sink() {
        if (sink == null) {
            sink = Objects.requireNonNull(factory.get(), "the sink factory returned null");
        }
        return sink;
    }

    /** The records one writer subtask received between two barriers, numbered as the class comment says. */
    public record Segment<IN>(int subtask, long checkpointId, long timestamp, List<IN> records) {
    }

    @Override
    public CommittingSinkWriter<IN, Segment<IN>> createWriter(WriterInitContext context) {
        int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        long first = context.getRestoredCheckpointId().orElse(0) + 1;
        return new CommittingSinkWriter<>() {
            private List<IN> records = new ArrayList<>();
            private long next = first;

            @Override
            public void write(IN element, Context ignored) {
                records.add(element);
            }

            @Override
            public void flush(boolean endOfInput) {
                // The records are sent by the committer, after their checkpoint completed.
            }

            @Override
            public Collection<Segment<IN>> prepareCommit() {
                long number = next++;
                if (records.isEmpty()) {
                    return List.of();
                }
                Segment<IN> segment = new Segment<>(subtask, number, System.currentTimeMillis(), List.copyOf(records));
                records = new ArrayList<>();
                return List.of(segment);
            }

            @Override
            public void close() {
                records.clear();
            }
        };
    }

    @Override
    public Committer<Segment<IN>> createCommitter(CommitterInitContext context) {
        SinkContext sinkContext = contexts.of(context, context.getTaskInfo().getNumberOfParallelSubtasks());
        GenericWriteAheadSink<IN> writeAhead = sink();
        return new Committer<>() {
            private WriteAheadWriter<IN> writer;
            private CheckpointCommitter committer;

            @Override
            public void commit(Collection<CommitRequest<Segment<IN>>> requests) throws IOException {
                for (CommitRequest<Segment<IN>> request : requests) {
                    Segment<IN> segment = request.getCommittable();
                    try {
                        if (writer == null) {
                            writer = writeAhead.createWriter(sinkContext);
                            committer = writeAhead.createCommitter(sinkContext);
                            committer.open();
                        }
                        if (committer.isCheckpointCommitted(segment.subtask(), segment.checkpointId())) {
                            request.signalAlreadyCommitted();
                        } else if (writer.sendValues(segment.records(), segment.subtask(), segment.checkpointId(),
                                segment.timestamp())) {
                            committer.commitCheckpoint(segment.subtask(), segment.checkpointId());
                        } else {
                            // Kept, never dropped: Flink asks again (and fails the job after its retries).
                            request.retryLater();
                        }
                    } catch (Exception e) {
                        request.signalFailedWithUnknownReason(e);
                    }
                }
            }

            @Override
            public void close() throws Exception {
                try {
                    if (writer != null) {
                        writer.close();
                    }
                } finally {
                    if (committer != null) {
                        committer.close();
                    }
                }
            }
        };
    }

    @Override
    public SimpleVersionedSerializer<Segment<IN>> getCommittableSerializer() {
        return new SegmentSerializer<>(sink().recordSerializer());
    }

    /**
     * Version 1: subtask (int), number (long), timestamp (long), the record serializer's version
     * (int), the record count (int), then each record's length (int) and bytes. Read defensively:
     * segments are Flink checkpoint state, which is input.
     */
    static final class SegmentSerializer<IN> implements SimpleVersionedSerializer<Segment<IN>> {
        private final dev.onceflow.spi.serialization.SimpleVersionedSerializer<IN> records;

        SegmentSerializer(dev.onceflow.spi.serialization.SimpleVersionedSerializer<IN> records) {
            this.records = records;
        }

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Segment<IN> segment) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(segment.subtask());
            out.writeLong(segment.checkpointId());
            out.writeLong(segment.timestamp());
            out.writeInt(records.version());
            out.writeInt(segment.records().size());
            for (IN record : segment.records()) {
                byte[] serialized = records.serialize(record);
                out.writeInt(serialized.length);
                out.write(serialized);
            }
            out.flush();
            return bytes.toByteArray();
        }

        @Override
        public Segment<IN> deserialize(int version, byte[] serialized) throws IOException {
            if (version != 1) {
                throw new IOException("unknown write-ahead segment version " + version);
            }
            DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(serialized));
            try {
                int subtask = in.readInt();
                long checkpointId = in.readLong();
                long timestamp = in.readLong();
                int recordVersion = in.readInt();
                int count = in.readInt();
                if (subtask < 0 || count < 0 || count > serialized.length) {
                    throw new IOException("corrupt write-ahead segment: subtask " + subtask + ", " + count + " records");
                }
                List<IN> values = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    int length = in.readInt();
                    if (length < 0 || length > in.available()) {
                        throw new IOException("corrupt write-ahead segment: record " + i + " of " + length + " bytes");
                    }
                    values.add(records.deserialize(recordVersion, in.readNBytes(length)));
                }
                if (in.available() != 0) {
                    throw new IOException("corrupt write-ahead segment: " + in.available() + " trailing bytes");
                }
                return new Segment<>(subtask, checkpointId, timestamp, values);
            } catch (java.io.EOFException e) {
                throw new IOException("truncated write-ahead segment of " + serialized.length + " bytes", e);
            }
        }
    }
}
