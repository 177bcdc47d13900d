package dev.onceflow.flink;

import dev.onceflow.spi.sink.AtLeastOnceWriter;
import java.io.IOException;
import org.apache.flink.api.connector.sink2.SinkWriter;

/**
 * An Onceflow {@link AtLeastOnceWriter} (an idempotent one included) as a Flink writer: Flink
 * flushes a sink writer before its barrier goes on and at end of input, which is where ALO-1 wants
 * {@link AtLeastOnceWriter#flush()}.
 */
final class FlushingSinkWriter<IN> implements SinkWriter<IN> {

    private final AtLeastOnceWriter<IN> writer;

    FlushingSinkWriter(AtLeastOnceWriter<IN> writer) {
        this.writer = writer;
    }

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
}
