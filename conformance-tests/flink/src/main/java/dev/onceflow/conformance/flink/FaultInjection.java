package dev.onceflow.conformance.flink;

import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.ForwardingTransactionalWriter;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.PreCommitted;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import dev.onceflow.spi.sink.WriteAheadWriter;
import dev.onceflow.spi.source.Boundedness;
import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.ReaderOutput;
import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import dev.onceflow.spi.source.SourceSplit;
import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The connector under test, wrapped so that Onceflow's fault points are reached on Flink at the
 * same steps of the protocol as on Onceflow's runtime. The bridge calls the connector exactly as
 * the runtime's operators do, so each point sits around the same SPI call:
 *
 * <ul>
 * <li>{@code source.before-barrier}: before the reader's {@code snapshotState}, which Flink calls
 *     when the barrier reaches the source subtask, before it goes downstream;
 * <li>{@code sink.before-precommit} / {@code sink.after-precommit}: before pre-commit, and once
 *     the transaction it returned is durable;
 * <li>{@code sink.before-commit} / {@code sink.mid-commit}: around the commit of a handle that a
 *     writer of this JVM pre-committed (Flink's committer commits through {@code recoverAndCommit});
 * <li>{@code sink.during-recovery}: after the commit of a handle this JVM did not pre-commit, i.e.
 *     one restored from the checkpoint;
 * <li>{@code sink.wal-mid-send}: when the write-ahead sink takes the first record of a segment to send.
 * <li>{@code sink.wal-after-send}: after a write-ahead segment was sent, before it is marked committed.
 * </ul>
 *
 * The coordinator's points are in {@link FaultingCheckpointStorage}; the task's in the count step.
 */
final class FaultInjection {

    /** Handles pre-committed by a writer of this JVM, serialized: the committer runs on other instances. */
    private static final Set<String> PRE_COMMITTED_HERE = ConcurrentHashMap.newKeySet();

    private FaultInjection() {
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static <IN> Sink<IN> wrap(Sink<IN> sink) {
        if (sink instanceof TwoPhaseCommitSink twoPhase) {
            return new FaultingTwoPhaseCommitSink<>(twoPhase);
        }
        if (sink instanceof GenericWriteAheadSink writeAhead) {
            return new FaultingWriteAheadSink<>(writeAhead);
        }
        return sink; // at-least-once and idempotent sinks have no sink-side point of the protocol: they write, then flush
    }

    static <T, S extends SourceSplit, E> ReplayableSource<T, S, E> wrap(ReplayableSource<T, S, E> source) {
        return new FaultingSource<>(source);
    }

    private static <TXN> String key(SimpleVersionedSerializer<TXN> serializer, TXN handle) throws Exception {
        return serializer.version() + ":" + Base64.getEncoder().encodeToString(serializer.serialize(handle));
    }

    private record FaultingTwoPhaseCommitSink<IN, TXN>(TwoPhaseCommitSink<IN, TXN> delegate)
            implements TwoPhaseCommitSink<IN, TXN> {

        @Override
        public TransactionalWriter<IN, TXN> createWriter(SinkContext context) throws Exception {
            return new FaultingWriter<>(delegate.createWriter(context), delegate.transactionSerializer());
        }

        @Override
        public SimpleVersionedSerializer<TXN> transactionSerializer() {
            return delegate.transactionSerializer();
        }
    }

    /**
     * The wrapped writer, call for call, but for the fault points around pre-commit and commit.
     * Pre-commit has two entry points, and both reach the points: {@code preCommitAsync}, which is
     * the wrapped writer's asynchronous pre-commit, kept, and {@code preCommit}, which the bridge
     * calls and which waits for it.
     */
    private static final class FaultingWriter<IN, TXN> extends ForwardingTransactionalWriter<IN, TXN> {

        private final SimpleVersionedSerializer<TXN> serializer;

        FaultingWriter(TransactionalWriter<IN, TXN> delegate, SimpleVersionedSerializer<TXN> serializer) {
            super(delegate);
            this.serializer = serializer;
        }

        @Override
        public TXN preCommit(TXN transaction) throws Exception {
            return preCommitAsync(transaction).awaitDurable();
        }

        /** {@code sink.after-precommit} is reached once the transaction is durable, as on Onceflow's runtime. */
        @Override
        public PreCommitted<TXN> preCommitAsync(TXN transaction) throws Exception {
            FaultPoints.reach(FaultPoints.SINK_BEFORE_PRECOMMIT);
            PreCommitted<TXN> preCommitted = delegate().preCommitAsync(transaction);
            PRE_COMMITTED_HERE.add(key(serializer, preCommitted.handle()));
            return new PreCommitted<>(preCommitted.handle(),
                    preCommitted.durable().thenRun(() -> FaultPoints.reach(FaultPoints.SINK_AFTER_PRECOMMIT)));
        }

        @Override
        public void commit(TXN transaction) throws Exception {
            FaultPoints.reach(FaultPoints.SINK_BEFORE_COMMIT);
            delegate().commit(transaction);
            FaultPoints.reach(FaultPoints.SINK_MID_COMMIT);
        }

        @Override
        public void recoverAndCommit(TXN transaction) throws Exception {
            if (PRE_COMMITTED_HERE.contains(key(serializer, transaction))) {
                commit(transaction);
            } else {
                delegate().recoverAndCommit(transaction);
                FaultPoints.reach(FaultPoints.SINK_DURING_RECOVERY);
            }
        }
    }

    private record FaultingWriteAheadSink<IN>(GenericWriteAheadSink<IN> delegate) implements GenericWriteAheadSink<IN> {

        @Override
        public WriteAheadWriter<IN> createWriter(SinkContext context) throws Exception {
            WriteAheadWriter<IN> writer = delegate.createWriter(context);
            return new WriteAheadWriter<>() {
                @Override
                public boolean sendValues(Iterable<IN> values, long checkpointId, long timestamp) throws Exception {
                    return sent(writer.sendValues(FaultPoints.sending(values), checkpointId, timestamp));
                }

                @Override
                public boolean sendValues(Iterable<IN> values, int subtaskIndex, long checkpointId, long timestamp)
                        throws Exception {
                    return sent(writer.sendValues(FaultPoints.sending(values), subtaskIndex, checkpointId, timestamp));
                }

                private boolean sent(boolean sent) {
                    if (sent) {
                        FaultPoints.reach(FaultPoints.SINK_WAL_AFTER_SEND);
                    }
                    return sent;
                }

                @Override
                public void close() throws Exception {
                    writer.close();
                }
            };
        }

        @Override
        public CheckpointCommitter createCommitter(SinkContext context) throws Exception {
            return delegate.createCommitter(context);
        }

        @Override
        public SimpleVersionedSerializer<IN> recordSerializer() {
            return delegate.recordSerializer();
        }
    }

    private record FaultingSource<T, S extends SourceSplit, E>(ReplayableSource<T, S, E> delegate)
            implements ReplayableSource<T, S, E> {

        @Override
        public Boundedness boundedness() {
            return delegate.boundedness();
        }

        @Override
        public SplitEnumerator<S, E> createEnumerator(SplitEnumeratorContext<S> context) throws Exception {
            return delegate.createEnumerator(context);
        }

        @Override
        public SplitEnumerator<S, E> restoreEnumerator(SplitEnumeratorContext<S> context, E state) throws Exception {
            return delegate.restoreEnumerator(context, state);
        }

        @Override
        public SourceReader<T, S> createReader(SourceReaderContext context) throws Exception {
            SourceReader<T, S> reader = delegate.createReader(context);
            return new SourceReader<>() {
                @Override
                public void start() throws Exception {
                    reader.start();
                }

                @Override
                public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
                    return reader.pollNext(output);
                }

                @Override
                public List<S> snapshotState(long checkpointId) throws Exception {
                    FaultPoints.reach(FaultPoints.SOURCE_BEFORE_BARRIER);
                    return reader.snapshotState(checkpointId);
                }

                @Override
                public void addSplits(List<S> splits) {
                    reader.addSplits(splits);
                }

                @Override
                public void notifyNoMoreSplits() {
                    reader.notifyNoMoreSplits();
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
                    reader.close();
                }
            };
        }

        @Override
        public dev.onceflow.spi.serialization.SimpleVersionedSerializer<S> splitSerializer() {
            return delegate.splitSerializer();
        }

        @Override
        public dev.onceflow.spi.serialization.SimpleVersionedSerializer<E> enumeratorStateSerializer() {
            return delegate.enumeratorStateSerializer();
        }
    }
}
