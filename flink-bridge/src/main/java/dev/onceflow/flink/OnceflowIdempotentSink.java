package dev.onceflow.flink;

import dev.onceflow.spi.sink.IdempotentSink;
import java.io.IOException;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Any Onceflow {@link IdempotentSink} as a Flink sink: driven as every
 * {@link OnceflowAtLeastOnceSink at-least-once sink} is, flushed at every barrier (IDEM-2), and a
 * replay rewrites the same ids (IDEM-1). Delivery is at-least-once; the final state is exactly-once.
 */
public final class OnceflowIdempotentSink<IN> implements Sink<IN> {

    private static final long serialVersionUID = 1L;

    private final OnceflowAtLeastOnceSink<IN> adapted;

    private OnceflowIdempotentSink(OnceflowAtLeastOnceSink<IN> adapted) {
        this.adapted = adapted;
    }

    /**
     * A Flink sink that builds its Onceflow sink with {@code factory} wherever Flink runs it.
     *
     * @param sinkUid stable identity of the sink (give the Flink operator the same uid)
     */
    public static <IN> OnceflowIdempotentSink<IN> of(SerializableSupplier<? extends IdempotentSink<IN>> factory,
            String sinkUid) {
        return new OnceflowIdempotentSink<>(OnceflowAtLeastOnceSink.of(factory, sinkUid));
    }

    /** Names the job {@code name} in the sink's context instead of the Flink job's name. */
    public OnceflowIdempotentSink<IN> withJobName(String name) {
        return new OnceflowIdempotentSink<>(adapted.withJobName(name));
    }

    @Override
    public SinkWriter<IN> createWriter(WriterInitContext context) throws IOException {
        return adapted.createWriter(context);
    }
}
