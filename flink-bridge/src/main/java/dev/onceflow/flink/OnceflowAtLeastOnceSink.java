package dev.onceflow.flink;

import dev.onceflow.spi.sink.AtLeastOnceSink;
import dev.onceflow.spi.sink.AtLeastOnceWriter;
import java.io.IOException;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Any Onceflow {@link AtLeastOnceSink} as a Flink sink: records are written as they come and
 * {@code flush}ed at every barrier (Flink flushes a sink writer before its barrier goes on), so a
 * completed checkpoint covers no buffered record (ALO-1). Delivery is at-least-once: a record
 * replayed after a restore is written again, and appears twice unless the sink is an
 * {@link dev.onceflow.spi.sink.IdempotentSink} (see {@link OnceflowIdempotentSink}).
 */
public final class OnceflowAtLeastOnceSink<IN> implements Sink<IN> {

    private static final long serialVersionUID = 1L;

    private final SerializableSupplier<? extends AtLeastOnceSink<IN>> factory;
    private final SinkContexts contexts;

    private OnceflowAtLeastOnceSink(SerializableSupplier<? extends AtLeastOnceSink<IN>> factory, SinkContexts contexts) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.contexts = contexts;
    }

    /**
     * A Flink sink that builds its Onceflow sink with {@code factory} wherever Flink runs it.
     *
     * @param sinkUid stable identity of the sink (give the Flink operator the same uid)
     */
    public static <IN> OnceflowAtLeastOnceSink<IN> of(SerializableSupplier<? extends AtLeastOnceSink<IN>> factory,
            String sinkUid) {
        return new OnceflowAtLeastOnceSink<>(factory, new SinkContexts(sinkUid, null, 1));
    }

    /** Names the job {@code name} in the sink's context instead of the Flink job's name. */
    public OnceflowAtLeastOnceSink<IN> withJobName(String name) {
        return new OnceflowAtLeastOnceSink<>(factory, contexts.withJobName(name));
    }

    @Override
    public SinkWriter<IN> createWriter(WriterInitContext context) throws IOException {
        AtLeastOnceWriter<IN> writer = Failures.io("creating the writer of sink '" + contexts.sinkUid() + "'",
                () -> factory.get().createWriter(contexts.of(context, context.getTaskInfo().getNumberOfParallelSubtasks())));
        return new FlushingSinkWriter<>(writer);
    }
}
