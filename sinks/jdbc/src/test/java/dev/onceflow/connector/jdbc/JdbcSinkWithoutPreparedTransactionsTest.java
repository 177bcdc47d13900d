package dev.onceflow.connector.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.WriteAheadWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A server with PostgreSQL's default {@code max_prepared_transactions = 0} cannot run the sink: say so at start. */
class JdbcSinkWithoutPreparedTransactionsTest {

    @RegisterExtension
    static final PostgresServer server = new PostgresServer(0);

    @Test
    void writerFailsAtStartNamingTheSettingAndTheValueToSet() {
        JdbcSink sink = JdbcSink.builder(server.url(), "events").user("postgres").build();

        assertThatThrownBy(() -> sink.createWriter(new SinkContext("job", "sink", 1, 3, 3, OptionalLong.empty(), "a1")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("PostgreSQL max_prepared_transactions is 0; set it to at least 6 in postgresql.conf and "
                        + "restart the server (exactly-once mode prepares up to parallelism 3 x (max concurrent "
                        + "checkpoints 1 + 1) transactions), or use mode write-ahead, which needs none");
    }

    @Test
    void theSuggestedWriteAheadModeWorksWithoutPreparedTransactions() throws Exception {
        JdbcWriteAheadSink sink = JdbcSink.builder(server.url(), "wal_events").user("postgres").buildWriteAhead();
        SinkContext context = new SinkContext("job", "sink", 0, 1, 1, OptionalLong.empty(), "a1");
        List<Event> events = List.of(new Event("1", "k", "p", 1), new Event("2", "k", "p", 2));

        try (CheckpointCommitter committer = sink.createCommitter(context);
                WriteAheadWriter<Event> writer = sink.createWriter(context)) {
            committer.open();
            assertThat(writer.sendValues(events, 0, 1, 0L)).isTrue();
            assertThat(committer.isCheckpointCommitted(0, 1)).isTrue();
        }
        assertThat(server.query("SELECT id FROM wal_events ORDER BY id")).containsExactly(List.of("1"), List.of("2"));
    }
}
