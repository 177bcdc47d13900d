package dev.onceflow.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.spi.sink.IdempotentWriter;
import dev.onceflow.spi.sink.SinkContext;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class DiscardingSinkTest {

    @Test
    void countsWhatEveryWriterReceivedOnceTheyClose() throws Exception {
        DiscardingSink<String> sink = new DiscardingSink<>();
        IdempotentWriter<String> first = sink.createWriter(context(0));
        IdempotentWriter<String> second = sink.createWriter(context(1));

        first.write("a");
        first.write("b");
        first.flush();
        second.write("c");
        first.close();
        second.close();
        second.close();

        assertThat(sink.received()).as("records of both writers, each counted once").isEqualTo(3);
    }

    private static SinkContext context(int subtask) {
        return new SinkContext("job", "discard", subtask, 2, 2, OptionalLong.empty(), "attempt");
    }
}
