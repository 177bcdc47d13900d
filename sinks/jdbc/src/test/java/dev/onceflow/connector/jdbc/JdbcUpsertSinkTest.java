package dev.onceflow.connector.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.IdempotentWriter;
import dev.onceflow.spi.sink.SinkContext;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** IDEM-1 and IDEM-2 for the idempotent (upsert) mode on a real PostgreSQL. */
class JdbcUpsertSinkTest {

    private static final AtomicInteger CASES = new AtomicInteger();

    @RegisterExtension
    static final PostgresServer server = new PostgresServer(0);

    private String table;

    @BeforeEach
    void freshTable() {
        table = "upserts_" + CASES.incrementAndGet();
    }

    @Test
    void flushMakesEveryWrittenRowVisibleAndUnflushedRowsDieWithTheWriter() throws Exception {
        IdempotentWriter<Event> writer = writer(1000);
        writer.write(new Event("1", "a", "p1", 1));
        writer.write(new Event("2", "b", "p2", 1));
        writer.flush();
        assertThat(rows()).containsExactly(List.of("1", "a", "1", "p1"), List.of("2", "b", "1", "p2"));

        writer.write(new Event("3", "c", "p3", 1));
        writer.close(); // a crash before the barrier: the replay writes it again

        assertThat(rows()).extracting(row -> row.get(0)).containsExactly("1", "2");
    }

    @Test
    void replayingRecordsOverwritesTheirRowsInsteadOfDuplicatingThem() throws Exception {
        try (IdempotentWriter<Event> first = writer(2)) {
            for (int id = 0; id < 5; id++) {
                first.write(new Event(Integer.toString(id), "k", "old", id));
            }
            first.flush();
        }
        try (IdempotentWriter<Event> replay = writer(2)) {
            for (int id = 3; id < 7; id++) {
                replay.write(new Event(Integer.toString(id), "k", "new", id * 10));
            }
            replay.flush();
        }

        assertThat(rows()).containsExactly(List.of("0", "k", "0", "old"), List.of("1", "k", "1", "old"),
                List.of("2", "k", "2", "old"), List.of("3", "k", "30", "new"), List.of("4", "k", "40", "new"),
                List.of("5", "k", "50", "new"), List.of("6", "k", "60", "new"));
    }

    @Test
    void anIdRepeatedWithinOneBatchKeepsItsLastRecord() throws Exception {
        try (IdempotentWriter<Event> writer = writer(1000)) {
            writer.write(new Event("1", "k", "first", 1));
            writer.write(new Event("2", "k", "only", 1));
            writer.write(new Event("1", "k", "second", 2));
            writer.flush();
        }
        assertThat(rows()).containsExactly(List.of("1", "k", "2", "second"), List.of("2", "k", "1", "only"));
    }

    @Test
    void aBadRowFailsTheFlushNamingItsIdAndCommitsNothingOfTheBatch() throws Exception {
        try (IdempotentWriter<Event> writer = writer(1000)) {
            writer.write(new Event("1", "k", "fine", 1));
            writer.write(new Event("2", "k", "nul \0 byte", 1));

            assertThatThrownBy(writer::flush).isInstanceOf(SQLException.class).hasMessageContaining("record id '2'");
        }
        assertThat(rows()).isEmpty();
    }

    private IdempotentWriter<Event> writer(int batchSize) throws Exception {
        return JdbcSink.builder(server.url(), table).user("postgres").batchSize(batchSize).buildIdempotent()
                .createWriter(new SinkContext("job", "sink", 0, 1, 1, OptionalLong.empty(), "attempt"));
    }

    private List<List<String>> rows() throws SQLException {
        return server.query("SELECT id, key, count, payload FROM " + table + " ORDER BY id");
    }
}
