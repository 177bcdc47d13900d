package dev.onceflow.benchmarks;

import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.IdempotentWriter;
import dev.onceflow.spi.sink.SinkContext;
import java.util.concurrent.atomic.LongAdder;

/**
 * A sink that counts records and drops them, so a benchmark measures the runtime and not an
 * external system. Idempotent trivially (IDEM-1: nothing is stored), and {@code flush} has
 * nothing to make durable (IDEM-2), so a barrier costs the sink nothing.
 *
 * <p>Each writer counts in a plain field on its task thread (no shared write per record) and adds
 * its count to the sink's total when it closes.
 */
public final class DiscardingSink<T> implements IdempotentSink<T> {

    private final LongAdder received = new LongAdder();

    @Override
    public IdempotentWriter<T> createWriter(SinkContext context) {
        return new Writer();
    }

    /** Records of every writer closed so far. */
    public long received() {
        return received.sum();
    }

    private final class Writer implements IdempotentWriter<T> {

        private long count;
        private boolean closed;

        @Override
        public void write(T record) {
            count++;
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            // The runtime may close a writer twice (close, then cancel on a failure): count once.
            if (!closed) {
                closed = true;
                received.add(count);
            }
        }
    }
}
