package dev.onceflow.connector.jdbc;

import static dev.onceflow.connector.jdbc.JdbcTestSupport.writeAndPreCommit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.IdempotentWriter;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.WriteAheadWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The JDBC sink's three modes on a real MariaDB (the installed mariadbd): XA prepare and commit
 * from another connection, prepared transactions surviving the writer and a server crash, lingering
 * ones rolled back, upserts and the write-ahead marker.
 */
@SuppressWarnings("try") // the SPI's close() throws Exception
class MariaDbSinkTest {

    private static final AtomicInteger CASES = new AtomicInteger();

    @RegisterExtension
    static final MariaDbTestServer server = new MariaDbTestServer();

    private String table;
    private String job;

    @BeforeEach
    void freshNames() {
        int n = CASES.incrementAndGet();
        table = "events_" + n;
        job = "job" + n;
    }

    @Test
    void aCommitWhileThePreparingSessionIsStillOpenFailsInsteadOfReadingAsCommitted() throws Exception {
        String gid = job + ":sink:0:1";
        execute("CREATE TABLE " + table + " (id VARCHAR(64) PRIMARY KEY)");
        try (Connection preparing = server.connect(); Statement statement = preparing.createStatement()) {
            statement.execute("XA START '" + gid + "'");
            statement.execute("INSERT INTO " + table + " VALUES ('1')");
            statement.execute("XA END '" + gid + "'");
            statement.execute("XA PREPARE '" + gid + "'");

            try (Connection committing = server.connect()) {
                assertThatThrownBy(() -> MariaDbDialect.INSTANCE.commitPrepared(committing, gid))
                        .isInstanceOf(SQLException.class).hasMessageContaining("still prepared");
            }
        }
        try (Connection committing = server.connect()) {
            assertThat(MariaDbDialect.INSTANCE.commitPrepared(committing, gid)).isTrue();
            assertThat(MariaDbDialect.INSTANCE.commitPrepared(committing, gid)).as("2PC-4").isFalse();
        }
        assertThat(JdbcTestSupport.query(server.connect(), "SELECT id FROM " + table)).containsExactly(List.of("1"));
    }

    @Test
    void rowsAreInvisibleUntilCommittedFromAnotherConnection() throws Exception {
        try (TransactionalWriter<Event, JdbcTransaction> writer = twoPhase(context(0, 1, OptionalLong.empty()))) {
            writer.abortLingering();
            JdbcTransaction prepared = writeAndPreCommit(writer, 1, events(0, 5));

            assertThat(prepared).isEqualTo(new JdbcTransaction(job + ":sink:0:1", 5));
            assertThat(ids()).as("2PC-1").isEmpty();
            assertThat(preparedGids()).containsExactly(job + ":sink:0:1");

            writer.commit(prepared);
            writer.commit(prepared); // 2PC-4: again, as after a restore
        }
        assertThat(ids()).containsExactly("0", "1", "2", "3", "4");
        assertThat(preparedGids()).isEmpty();
    }

    @Test
    void preparedTransactionSurvivesAServerCrashAndIsCommittedByTheNextAttempt() throws Exception {
        JdbcTransaction prepared;
        TransactionalWriter<Event, JdbcTransaction> dead = twoPhase(context(0, 1, OptionalLong.empty()));
        prepared = writeAndPreCommit(dead, 1, events(0, 3));
        // the process dies without closing its writer, then the server crashes too
        server.crashAndRestart();

        try (TransactionalWriter<Event, JdbcTransaction> recovered = twoPhase(context(0, 1, OptionalLong.of(1)))) {
            recovered.recoverAndCommit(JdbcTransactionSerializer.INSTANCE.deserialize(1,
                    JdbcTransactionSerializer.INSTANCE.serialize(prepared)));
            recovered.abortLingering();
        }
        assertThat(ids()).containsExactly("0", "1", "2");
        assertThat(preparedGids()).isEmpty();
    }

    @Test
    void abortLingeringRollsBackOwnedTransactionsAfterTheRestoredCheckpointOnly() throws Exception {
        TransactionalWriter<Event, JdbcTransaction> dead0 = twoPhase(context(0, 2, OptionalLong.empty()));
        TransactionalWriter<Event, JdbcTransaction> dead1 = twoPhase(context(1, 2, OptionalLong.empty()));
        JdbcTransaction kept = writeAndPreCommit(dead0, 3, events(0, 2));
        writeAndPreCommit(dead0, 4, events(2, 4));
        writeAndPreCommit(dead1, 4, events(4, 6));

        try (TransactionalWriter<Event, JdbcTransaction> restored = twoPhase(context(0, 2, OptionalLong.of(3)))) {
            restored.abortLingering();
            assertThat(preparedGids()).as("subtask 1's is subtask 1's to abort")
                    .containsExactlyInAnyOrder(kept.gid(), job + ":sink:1:4");
            restored.recoverAndCommit(kept);
        }
        assertThat(ids()).containsExactly("0", "1");
    }

    /** 2PC-9 on XA: a job whose names join to the same text as another's leaves that one's xid alone. */
    @Test
    void abortLingeringOfOneJobLeavesAnXidOfAJobWhoseNamesJoinTheSame() throws Exception {
        List<String> prepared = JdbcTestSupport.preparedAfterAJobWhoseNamesJoinTheSameStarted(this::twoPhase, job,
                events(0, 3), this::preparedGids);

        assertThat(prepared).containsExactly(job + "orders-eu:db:0:1");
        assertThat(ids()).containsExactly("0", "1", "2");
    }

    /** 2PC-5, 2PC-9 on XA: an xid rolled back by someone else fails its commit instead of reading as committed. */
    @Test
    void anXidRolledBackBehindTheSinksBackFailsItsCommit() throws Exception {
        try (TransactionalWriter<Event, JdbcTransaction> writer = twoPhase(context(0, 1, OptionalLong.empty()))) {
            JdbcTransaction prepared = writeAndPreCommit(writer, 1, events(0, 3));
            execute("XA ROLLBACK '" + prepared.gid() + "'");

            assertThatThrownBy(() -> writer.recoverAndCommit(prepared)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("LOST").hasMessageContaining(prepared.gid());
        }
        assertThat(ids()).isEmpty();
    }

    @Test
    void aBadRowFailsPreCommitNamingTheRecordAndPreparesNothing() throws Exception {
        try (TransactionalWriter<Event, JdbcTransaction> writer = twoPhase(context(0, 1, OptionalLong.empty()))) {
            JdbcTransaction open = writer.beginTransaction(1);
            writer.write(open, event(1));
            writer.write(open, event(1));

            assertThatThrownBy(() -> writer.preCommit(open)).isInstanceOf(SQLException.class)
                    .hasMessageContaining("record id '1'").hasMessageContaining("Duplicate entry");
        }
        assertThat(ids()).isEmpty();
        assertThat(preparedGids()).isEmpty();
    }

    @Test
    void upsertsOverwriteReplayedRows() throws Exception {
        SinkContext context = context(0, 1, OptionalLong.empty());
        try (IdempotentWriter<Event> writer = builder().buildIdempotent().createWriter(context)) {
            writer.write(new Event("1", "k", "old", 1));
            writer.write(new Event("2", "k", "old", 2));
            writer.flush();
            writer.write(new Event("2", "k", "new", 20));
            writer.write(new Event("2", "k", "newer", 21));
            writer.flush();
        }
        assertThat(query("SELECT `id`, `count`, `payload` FROM `" + table + "` ORDER BY `id`"))
                .containsExactly(List.of("1", "1", "old"), List.of("2", "21", "newer"));
    }

    @Test
    void writeAheadSegmentAndMarkerCommitTogetherAndAreWrittenOnce() throws Exception {
        SinkContext context = context(0, 1, OptionalLong.empty());
        JdbcWriteAheadSink<Event> sink = builder().buildWriteAhead();
        try (CheckpointCommitter committer = sink.createCommitter(context);
                WriteAheadWriter<Event> writer = sink.createWriter(context);
                WriteAheadWriter<Event> zombie = sink.createWriter(context)) {
            committer.open();
            assertThat(writer.sendValues(events(0, 3), 0, 1, 0L)).isTrue();
            assertThat(zombie.sendValues(events(0, 3), 0, 1, 0L)).isTrue();
            assertThat(committer.isCheckpointCommitted(0, 1)).isTrue();
            committer.commitCheckpoint(0, 1);
        }
        assertThat(ids()).containsExactly("0", "1", "2");
    }

    @Test
    void rowsOfEveryTypeReadBackAsWrittenFromAnXaTransaction() throws Exception {
        List<Row> rows = TypedRows.rows(false);
        try (TransactionalWriter<Row, JdbcTransaction> writer = builder().rows(TypedRows.SCHEMA, Map.of()).build()
                .createWriter(context(0, 1, OptionalLong.empty()))) {
            JdbcTransaction open = writer.beginTransaction(1);
            for (Row row : rows) {
                writer.write(open, row);
            }
            writer.commit(writer.preCommit(open));
        }

        List<Row> read = new ArrayList<>();
        try (Connection connection = server.connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT * FROM `" + table + "` ORDER BY `id`")) {
            while (result.next()) {
                read.add(TypedRows.read(result, true));
            }
        }
        assertThat(read).hasSameSizeAs(rows);
        for (int i = 0; i < rows.size(); i++) {
            assertThat(TypedRows.difference(rows.get(i), read.get(i))).isNull();
        }
    }

    @Test
    void rowUpsertsReplaceByTheCompositeKeyWithBinaryStringsAsKeys() throws Exception {
        Schema stock = Schema.of(List.of(Field.of("warehouse", DataType.STRING), Field.of("sku", DataType.STRING),
                Field.of("quantity", DataType.INT)), List.of("warehouse", "sku"));
        try (IdempotentWriter<Row> writer = builder().rows(stock, Map.of("quantity", "Qty")).buildIdempotent()
                .createWriter(context(0, 1, OptionalLong.empty()))) {
            writer.write(Row.of(stock, "north", "a", 5));
            writer.write(Row.of(stock, "north", "A", 6));
            writer.write(Row.of(stock, "north", "a", 7));
            writer.flush();
        }
        assertThat(query("SELECT `warehouse`, `sku`, `Qty` FROM `" + table + "` ORDER BY `sku`"))
                .containsExactly(List.of("north", "A", "6"), List.of("north", "a", "7"));
    }

    private JdbcSink.Builder<Event> builder() {
        return JdbcSink.builder(server.url(), table).user("root").committerTable(table + "_checkpoints");
    }

    private TransactionalWriter<Event, JdbcTransaction> twoPhase(SinkContext context) throws Exception {
        return builder().build().createWriter(context);
    }

    private SinkContext context(int subtask, int parallelism, OptionalLong restored) {
        return new SinkContext(job, "sink", subtask, parallelism, parallelism, restored, "attempt");
    }

    private List<String> preparedGids() throws SQLException {
        return server.preparedGids();
    }

    private List<String> ids() throws SQLException {
        try {
            return query("SELECT `id` FROM `" + table + "` ORDER BY `id`").stream().map(row -> row.get(0)).toList();
        } catch (SQLException e) {
            if (e.getErrorCode() == 1146) { // no such table: nothing was written
                return List.of();
            }
            throw e;
        }
    }

    private static List<List<String>> query(String sql) throws SQLException {
        return server.query(sql);
    }

    private static void execute(String sql) throws SQLException {
        server.execute(sql);
    }

    private static List<Event> events(long from, long to) {
        return LongStream.range(from, to).mapToObj(MariaDbSinkTest::event).toList();
    }

    private static Event event(long id) {
        return new Event(Long.toString(id), "key-" + (id % 3), "payload '" + id + "\" \\ `", id * 10);
    }
}
