package dev.onceflow.flink;

import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Objects;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Any Onceflow {@link TwoPhaseCommitSink} as a Flink Sink V2 sink with a committer: the writer
 * pre-commits a transaction at every barrier and hands its handle to Flink as a committable, which
 * Flink stores in the checkpoint and commits once the checkpoint completed, and again after a
 * recovery (commit is idempotent: 2PC-4, 2PC-5).
 *
 * <pre>{@code
 * stream.sinkTo(OnceflowSink.of(() -> FileSystemSink.builder("hdfs://nn/out").build(), "files"))
 *       .uid("files");
 * }</pre>
 *
 * <p>How the contract of {@code docs/spec.md} maps onto Flink:
 * <ul>
 * <li>The {@link dev.onceflow.spi.sink.SinkContext} has Flink's job name (or {@link #withJobName}), the {@code sinkUid}
 *     given here (give the Flink operator the same uid), Flink's subtask, parallelism and restored
 *     checkpoint id, and the parallelism of the restored checkpoint, which the writers keep as
 *     their Flink writer state.
 * <li>A writer recovers nothing itself: Flink's committer commits the restored handles
 *     ({@code recoverAndCommit}). It calls {@code abortLingering} once, before its first
 *     transaction, which aborts every transaction of a checkpoint after the restored one.
 * <li>A transaction is opened at the first record after a barrier, for the checkpoint after the
 *     last one this writer took part in; a checkpoint interval without records pre-commits nothing.
 * <li>Commit failures fail the Flink job; it restarts from the checkpoint and commits again.
 * </ul>
 */
public final class OnceflowSink<IN, TXN> implements Sink<IN>, SupportsCommitter<TXN>,
        SupportsWriterState<IN, OnceflowSink.WriterState> {

    private static final long serialVersionUID = 1L;

    private final SerializableSupplier<? extends TwoPhaseCommitSink<IN, TXN>> factory;
    private final SinkContexts contexts;
    private transient TwoPhaseCommitSink<IN, TXN> sink;

    private OnceflowSink(SerializableSupplier<? extends TwoPhaseCommitSink<IN, TXN>> factory, SinkContexts contexts) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.contexts = contexts;
    }

    /**
     * A Flink sink that builds its Onceflow sink with {@code factory} wherever Flink runs it.
     *
     * @param sinkUid stable identity of the sink across restarts and job versions; part of every
     *     transaction id, so it must be unique among the sinks of the job
     */
    public static <IN, TXN> OnceflowSink<IN, TXN> of(SerializableSupplier<? extends TwoPhaseCommitSink<IN, TXN>> factory,
            String sinkUid) {
        return new OnceflowSink<>(factory, new SinkContexts(sinkUid, null, 1));
    }

    /** Names transactions after {@code name} instead of the Flink job's name, which may change between deployments. */
    public OnceflowSink<IN, TXN> withJobName(String name) {
        return new OnceflowSink<>(factory, contexts.withJobName(name));
    }

    /** Flink's {@code execution.checkpointing.max-concurrent-checkpoints}, if above 1 (sizes producer pools and the like). */
    public OnceflowSink<IN, TXN> withMaxConcurrentCheckpoints(int value) {
        return new OnceflowSink<>(factory, contexts.withMaxConcurrentCheckpoints(value));
    }

    TwoPhaseCommitSink<IN, TXN> sink() {
        if (sink == null) {
            sink = Objects.requireNonNull(factory.get(), "the sink factory returned null");
        }
        return sink;
    }

    @Override
    public StatefulSinkWriter<IN, WriterState> createWriter(WriterInitContext context) throws IOException {
        return restoreWriter(context, java.util.List.of());
    }

    @Override
    public StatefulSinkWriter<IN, WriterState> restoreWriter(WriterInitContext context,
            Collection<WriterState> recoveredState) throws IOException {
        int parallelism = context.getTaskInfo().getNumberOfParallelSubtasks();
        int restoredParallelism = recoveredState.stream().mapToInt(WriterState::parallelism).max().orElse(parallelism);
        return new WriterBridge<>(sink(), contexts.of(context, restoredParallelism), context.getRestoredCheckpointId());
    }

    @Override
    public SimpleVersionedSerializer<WriterState> getWriterStateSerializer() {
        return new WriterStateSerializer();
    }

    @Override
    public Committer<TXN> createCommitter(CommitterInitContext context) throws IOException {
        return new CommitterBridge<>(sink(), contexts.of(context, context.getTaskInfo().getNumberOfParallelSubtasks()));
    }

    @Override
    public SimpleVersionedSerializer<TXN> getCommittableSerializer() {
        return BridgedSerializer.same(sink().transactionSerializer());
    }

    /**
     * What a writer keeps in Flink's checkpoints: the parallelism it ran at, so that after a
     * rescale the writers know which former subtasks' lingering transactions are theirs to abort
     * ({@link dev.onceflow.spi.sink.SinkContext#ownsFormerSubtask}).
     */
    public record WriterState(int parallelism) {
    }

    /** Version 1: the parallelism as 4 bytes. */
    static final class WriterStateSerializer implements SimpleVersionedSerializer<WriterState> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(WriterState state) {
            return ByteBuffer.allocate(Integer.BYTES).putInt(state.parallelism()).array();
        }

        @Override
        public WriterState deserialize(int version, byte[] serialized) throws IOException {
            if (version != 1 || serialized.length != Integer.BYTES) {
                throw new IOException("unknown Onceflow writer state: version " + version + ", " + serialized.length
                        + " bytes");
            }
            int parallelism = ByteBuffer.wrap(serialized).getInt();
            if (parallelism < 1) {
                throw new IOException("corrupt Onceflow writer state: parallelism " + parallelism);
            }
            return new WriterState(parallelism);
        }
    }
}
