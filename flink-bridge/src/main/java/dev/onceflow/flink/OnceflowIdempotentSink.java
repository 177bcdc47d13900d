package dev.onceflow.flink;

import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.IdempotentWriter;
import java.io.IOException;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Any Onceflow {@link IdempotentSink} as a Flink sink: records are written as they come and
 * {@code flush}ed at every barrier (Flink flushes a sink writer before its barrier goes on), so a
 * completed checkpoint covers no buffered record (IDEM-2), and a replay rewrites the same ids
 * (IDEM-1). Delivery is at-least-once; the final state is exactly-once.
 */
public final class OnceflowIdempotentSink<IN> implements Sink<IN> {

    private static final long serialVersionUID = 1L;

    private final SerializableSupplier<? extends IdempotentSink<IN>> factory;
    private final SinkContexts contexts;

    private OnceflowIdempotentSink(SerializableSupplier<? extends IdempotentSink<IN>> factory, SinkContexts contexts) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.contexts = contexts;
    }

    /**
     * A Flink sink that builds its Onceflow sink with {@code factory} wherever Flink runs it.
     *
     * @param sinkUid stable identity of the sink (give the Flink operator the same uid)
     */
    public static <IN> OnceflowIdempotentSink<IN> of(SerializableSupplier<? extends IdempotentSink<IN>> factory,
            String sinkUid) {
        return new OnceflowIdempotentSink<>(factory, new SinkContexts(sinkUid, null, 1));
    }

    /** Names the job {@code name} in the sink's context instead of the Flink job's name. */
    public OnceflowIdempotentSink<IN> withJobName(String name) {
        return new OnceflowIdempotentSink<>(factory, contexts.withJobName(name));
    }

    @Override
    public SinkWriter<IN> createWriter(WriterInitContext context) throws IOException {
        IdempotentWriter<IN> writer = Failures.io("creating the writer of sink '" + contexts.sinkUid() + "'",
                () -> factory.get().createWriter(contexts.of(context, context.getTaskInfo().getNumberOfParallelSubtasks())));
        return new SinkWriter<>() {
            @Override
            public void write(IN element, Context ignored) throws IOException {
                Failures.io("writing a record", () -> {
                    writer.write(element);
                    return null;
                });
            }

            @Override
            public void flush(boolean endOfInput) throws IOException {
                Failures.io("flushing at a barrier", () -> {
                    writer.flush();
                    return null;
                });
            }

            @Override
            public void close() throws Exception {
                writer.close();
            }
        };
    }
}
