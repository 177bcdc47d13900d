package dev.onceflow.connector.jdbc;

import static dev.onceflow.connector.jdbc.JdbcTestSupport.writeAndPreCommit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.PreCommitted;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The two-phase commit rules (2PC-1 to 2PC-9 in docs/spec.md) for the JDBC sink on a real
 * PostgreSQL, driven through the SPI, with "crashes" simulated by dropping a writer without
 * closing it and recovering with a new one from the serialized handle.
 */
@SuppressWarnings("try") // TransactionalWriter.close() is declared to throw Exception by the SPI.
class JdbcSinkTest {

    private static final String PASSWORD = "pw-must-not-leak";
    private static final AtomicInteger CASES = new AtomicInteger();

    @RegisterExtension
    static final PostgresServer server = new PostgresServer(64);

    private String table;
    private String job;

    @BeforeEach
    void freshNames() {
        int n = CASES.incrementAndGet();
        table = "events_" + n;
        job = "job" + n;
    }

    @AfterEach
    void noPreparedTransactionsOutliveATest() throws SQLException {
        server.rollbackAllPrepared();
    }

    @Test
    void committedTableHoldsExactlyTheWrittenRows() throws Exception {
        try (TransactionalWriter<Event, JdbcTransaction> writer = writer(context(0, 1, OptionalLong.empty()))) {
            writer.abortLingering();
            JdbcTransaction open = writer.beginTransaction(1);
            for (Event event : events(0, 5)) {
                writer.write(open, event);
            }
            JdbcTransaction prepared = writer.preCommit(open);

            assertThat(prepared).isEqualTo(new JdbcTransaction(job + ":sink:0:1", 5));
            assertThat(rows()).as("2PC-1: nothing visible before commit").isEmpty();
            assertThat(server.preparedGids()).containsExactly(job + ":sink:0:1");

            writer.commit(prepared);
        }

        assertThat(rows()).containsExactlyElementsOf(asRows(events(0, 5)));
        assertThat(server.preparedGids()).isEmpty();
    }

    @Test
    void preCommitAsyncReturnsWhileTheDatabaseStillPreparesAndTheNextTransactionGoesOn() throws Exception {
        try (TransactionalWriter<Event, JdbcTransaction> writer = writer(context(0, 1, OptionalLong.empty()));
                java.sql.Connection locker = server.connect()) {
            JdbcTransaction first = writer.beginTransaction(1);
            for (Event event : events(0, 5)) {
                writer.write(first, event); // below the batch size: sent by pre-commit
            }
            locker.setAutoCommit(false);
            try (java.sql.Statement lock = locker.createStatement()) {
                lock.execute("LOCK TABLE " + PostgresSyntax.identifier(table) + " IN ACCESS EXCLUSIVE MODE");
            }

            PreCommitted<JdbcTransaction> preCommitted = assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> writer.preCommitAsync(first), "preCommitAsync waited for the database");

            assertThat(preCommitted.handle()).isEqualTo(new JdbcTransaction(job + ":sink:0:1", 5));
            CompletableFuture<Void> durable = preCommitted.durable().toCompletableFuture();
            assertThat(durable).as("the last batch waits for the table lock off the task thread").isNotDone();
            JdbcTransaction second = writer.beginTransaction(2);
            for (Event event : events(5, 8)) {
                writer.write(second, event);
            }

            locker.commit();
            durable.get(30, TimeUnit.SECONDS);
            assertThat(server.preparedGids()).as("2PC-2 once the stage completed").containsExactly(job + ":sink:0:1");
            writer.commit(preCommitted.handle());
            writer.commit(writer.preCommit(second));
        }

        assertThat(rows()).containsExactlyElementsOf(asRows(events(0, 8)));
        assertThat(server.preparedGids()).isEmpty();
    }

    @Test
    void commitIsIdempotent() throws Exception {
        try (TransactionalWriter<Event, JdbcTransaction> writer = writer(context(0, 1, OptionalLong.empty()))) {
            JdbcTransaction prepared = writeAndPreCommit(writer, 7, events(0, 5));
            writer.commit(prepared);

            writer.commit(prepared);
            writer.recoverAndCommit(prepared);
        }

        assertThat(rows()).containsExactlyElementsOf(asRows(events(0, 5)));
    }

    /**
     * 2PC-9: job {@code orders} with sink {@code eu-db} and job {@code orders-eu} with sink
     * {@code db} once had the same gids. One job's start must not roll back the other's prepared
     * transaction. Check the gid encoding and how abortLingering matches gids.
     */
    @Test
    void abortLingeringOfOneJobLeavesAPreparedTransactionOfAJobWhoseNamesJoinTheSame() throws Exception {
        List<String> prepared = JdbcTestSupport.preparedAfterAJobWhoseNamesJoinTheSameStarted(this::writer, job,
                events(0, 5), server::preparedGids);

        assertThat(prepared).as("the other job's start left the victim's transaction prepared")
                .containsExactly(job + "orders-eu:db:0:1");
        assertThat(rows()).containsExactlyElementsOf(asRows(events(0, 5)));
    }

    /**
     * 2PC-5, 2PC-9: a prepared transaction rolled back by someone else must not read as committed
     * before. Check the marker row the writer puts into each prepared transaction and the check
     * of it when COMMIT PREPARED finds no such gid.
     */
    @Test
    void aPreparedTransactionRolledBackBehindTheSinksBackFailsItsCommitNamingTheLostRows() throws Exception {
        JdbcTransaction prepared;
        try (TransactionalWriter<Event, JdbcTransaction> writer = writer(context(0, 1, OptionalLong.empty()))) {
            prepared = writeAndPreCommit(writer, 1, events(0, 5));
            try (java.sql.Connection admin = server.connect(); java.sql.Statement statement = admin.createStatement()) {
                statement.execute("ROLLBACK PREPARED " + PostgresSyntax.literal(prepared.gid()));
            }

            assertThatThrownBy(() -> writer.commit(prepared)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("LOST").hasMessageContaining(prepared.gid()).hasMessageContaining("5 rows");
        }
        try (TransactionalWriter<Event, JdbcTransaction> recovered = writer(context(0, 1, OptionalLong.of(1)))) {
            assertThatThrownBy(() -> recovered.recoverAndCommit(prepared)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("LOST").hasMessageContaining(prepared.gid());
        }
        assertThat(rows()).isEmpty();
    }

    /**
     * 2PC-4, 2PC-9: markers do not grow without bound, and the handle of a checkpoint whose marker
     * was deleted as too old still commits as a no-op. Check {@code CommitMarkers.prune}.
     */
    @Test
    void commitMarkersOlderThanTheKeptCheckpointsAreDeletedAndTheirHandlesStillCommit() throws Exception {
        long late = 2 + CommitMarkers.KEPT_CHECKPOINTS;
        JdbcTransaction first;
        try (TransactionalWriter<Event, JdbcTransaction> writer = writer(context(0, 1, OptionalLong.empty()))) {
            first = writeAndPreCommit(writer, 1, events(0, 1));
            writer.commit(first);
            writer.commit(writeAndPreCommit(writer, 2, events(1, 2)));
            writer.commit(writeAndPreCommit(writer, late, events(2, 3)));
        }

        assertThat(server.query("SELECT checkpoint_id FROM onceflow_checkpoints WHERE job = '" + job
                + "' ORDER BY checkpoint_id")).containsExactly(List.of("2"), List.of(Long.toString(late)));
        try (TransactionalWriter<Event, JdbcTransaction> recovered = writer(context(0, 1, OptionalLong.of(late)))) {
            recovered.recoverAndCommit(first);
        }
        assertThat(rows()).containsExactlyElementsOf(asRows(events(0, 3)));
    }

    /**
     * A job resuming from a checkpoint taken before 2PC-9 holds handles with old-format gids and
     * no commit marker: they still commit, and committing them again is still a no-op (2PC-4).
     */
    @Test
    void aHandleWithAnOldFormatGidFromAnEarlierVersionStillCommitsAndIsIdempotent() throws Exception {
        String oldGid = job + "-sink-0-3";
        try (TransactionalWriter<Event, JdbcTransaction> creator = writer(context(0, 1, OptionalLong.empty()));
                java.sql.Connection old = server.connect(); java.sql.Statement statement = old.createStatement()) {
            old.setAutoCommit(false);
            statement.execute("INSERT INTO " + PostgresSyntax.identifier(table)
                    + " (id, key, count, payload) VALUES ('0', 'key-0', 0, 'payload ''0\"')");
            statement.execute("PREPARE TRANSACTION " + PostgresSyntax.literal(oldGid));
        }
        JdbcTransaction handle = new JdbcTransaction(oldGid, 1);

        try (TransactionalWriter<Event, JdbcTransaction> recovered = writer(context(0, 1, OptionalLong.of(3)))) {
            recovered.recoverAndCommit(handle);
            recovered.recoverAndCommit(handle);
            recovered.abortLingering();
        }
        assertThat(rows()).containsExactlyElementsOf(asRows(events(0, 1)));
        assertThat(server.preparedGids()).isEmpty();
    }

    @Test
    void preparedTransactionSurvivesTheWriterAndIsCommittedOnRecovery() throws Exception {
        TransactionalWriter<Event, JdbcTransaction> crashed = writer(context(0, 1, OptionalLong.empty()));
        try {
            byte[] handle = JdbcTransactionSerializer.INSTANCE.serialize(writeAndPreCommit(crashed, 3, events(0, 100)));
            // The transaction of the next checkpoint is open and half written when the process dies.
            JdbcTransaction halfWritten = crashed.beginTransaction(4);
            crashed.write(halfWritten, events(100, 101).get(0));
            // Crash: the writer is dropped without close(); nothing else is called.

            try (TransactionalWriter<Event, JdbcTransaction> recovered = writer(context(0, 1, OptionalLong.of(3)))) {
                recovered.recoverAndCommit(JdbcTransactionSerializer.INSTANCE.deserialize(1, handle));
                recovered.recoverAndAbort(halfWritten);
                recovered.abortLingering();
            }

            assertThat(rows()).containsExactlyElementsOf(asRows(events(0, 100)));
            assertThat(server.preparedGids()).isEmpty();
        } finally {
            crashed.close();
        }
        assertThat(rows()).as("the dead attempt's open transaction never becomes visible").hasSize(100);
    }

    @Test
    void recoverAndAbortRollsBackWhatADeadAttemptPreparedAfterTheCheckpoint() throws Exception {
        TransactionalWriter<Event, JdbcTransaction> crashed = writer(context(0, 1, OptionalLong.empty()));
        try {
            // Barrier 4 arrived and was prepared, but checkpoint 4 never completed: restore from 3.
            JdbcTransaction prepared = writeAndPreCommit(crashed, 4, events(0, 10));

            try (TransactionalWriter<Event, JdbcTransaction> recovered = writer(context(0, 1, OptionalLong.of(3)))) {
                recovered.recoverAndAbort(new JdbcTransaction(prepared.gid(), 0));
                recovered.recoverAndAbort(new JdbcTransaction(prepared.gid(), 0));
            }

            assertThat(server.preparedGids()).isEmpty();
            assertThat(rows()).isEmpty();
        } finally {
            crashed.close();
        }
    }

    /**
     * 2PC-7, with a scale-down from 3 subtasks to 2: subtask 0 now owns former subtasks 0 and 2.
     * The gids are in the encoding before 2PC-9, as a job resuming from an old checkpoint finds
     * them: this job's and sink's own are still matched exactly.
     */
    @Test
    void abortLingeringRollsBackOnlyTransactionsOfOwnedSubtasksAfterTheRestoredCheckpoint() throws Exception {
        String prefix = job + "_x-sink-";
        List<String> abortedBySubtask0 = List.of(prefix + "0-4", prefix + "0-9", prefix + "2-5");
        List<String> kept = List.of(
                prefix + "0-2", // restored checkpoint 3 knows it: recovery committed or aborted it
                prefix + "0-3",
                prefix + "1-5", // subtask 1 owns it
                job + "_x-sink2-0-5", // another sink
                job + "_x-sink-a-0-5", // another sink whose uid starts with this one's and a '-'
                job + "Xx-sink-0-5", // '_' in the job name must not match any character
                "unrelated");
        for (String gid : abortedBySubtask0) {
            server.prepare(gid);
        }
        for (String gid : kept) {
            server.prepare(gid);
        }

        try (TransactionalWriter<Event, JdbcTransaction> writer =
                writer(new SinkContext(job + "_x", "sink", 0, 2, 3, OptionalLong.of(3), "a2"))) {
            writer.abortLingering();
        }

        assertThat(server.preparedGids()).containsExactlyInAnyOrderElementsOf(kept);
    }

    @Test
    void abortLingeringOnAFreshStartRollsBackEveryCheckpointOfThisSubtask() throws Exception {
        server.prepare(job + ":sink:0:1");
        server.prepare(job + ":sink:1:1");

        try (TransactionalWriter<Event, JdbcTransaction> writer = writer(context(1, 2, OptionalLong.empty()))) {
            writer.abortLingering();
        }

        assertThat(server.preparedGids()).containsExactly(job + ":sink:0:1");
    }

    @Test
    void emptyTransactionPreparesNothingAndCommitsAsANoOp() throws Exception {
        try (TransactionalWriter<Event, JdbcTransaction> writer = writer(context(0, 1, OptionalLong.empty()))) {
            JdbcTransaction prepared = writer.preCommit(writer.beginTransaction(1));

            assertThat(prepared.rows()).isZero();
            assertThat(server.preparedGids()).isEmpty();
            writer.commit(prepared);
            writer.recoverAndCommit(prepared);
        }
        assertThat(rows()).isEmpty();
    }

    @Test
    void abortDiscardsTheOpenTransaction() throws Exception {
        try (TransactionalWriter<Event, JdbcTransaction> writer = writer(context(0, 1, OptionalLong.empty()))) {
            JdbcTransaction open = writer.beginTransaction(1);
            writer.write(open, events(0, 1).get(0));
            writer.abort(open);

            JdbcTransaction next = writeAndPreCommit(writer, 2, events(0, 2));
            writer.commit(next);
        }
        assertThat(rows()).containsExactlyElementsOf(asRows(events(0, 2)));
    }

    @Test
    void batchesLargerThanTheBatchSizeAreAllWritten() throws Exception {
        try (TransactionalWriter<Event, JdbcTransaction> writer = JdbcSink.builder(server.url(), table)
                .user("postgres").batchSize(7).build().createWriter(context(0, 1, OptionalLong.empty()))) {
            JdbcTransaction prepared = writeAndPreCommit(writer, 1, events(0, 50));
            assertThat(prepared.rows()).isEqualTo(50);
            writer.commit(prepared);
        }
        assertThat(rows()).hasSize(50);
    }

    @Test
    void badRowFailsWithTheRecordIdAndTheDatabaseError() throws Exception {
        try (TransactionalWriter<Event, JdbcTransaction> writer = writer(context(0, 1, OptionalLong.empty()))) {
            JdbcTransaction open = writer.beginTransaction(1);
            writer.write(open, event(1));
            writer.write(open, event(2));
            writer.write(open, event(2));

            assertThatThrownBy(() -> writer.preCommit(open))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("record id '2'")
                    .hasMessageContaining("duplicate key value violates unique constraint")
                    .hasMessageNotContaining(PASSWORD);
        }
        assertThat(rows()).isEmpty();
        assertThat(server.preparedGids()).isEmpty();
    }

    @Test
    void badRowIsNamedWithTheInsertMethodToo() throws Exception {
        try (TransactionalWriter<Event, JdbcTransaction> writer = JdbcSink.builder(server.url(), table)
                .user("postgres").writeMethod(WriteMethod.INSERT).batchSize(3).build()
                .createWriter(context(0, 1, OptionalLong.empty()))) {
            JdbcTransaction open = writer.beginTransaction(1);
            writer.write(open, event(1));
            writer.write(open, event(2));
            writer.write(open, event(3));
            writer.write(open, new Event("4", "k", "nul \0 byte", 1));

            assertThatThrownBy(() -> writer.preCommit(open)).isInstanceOf(SQLException.class)
                    .hasMessageContaining("record id '4'");
        }
        assertThat(rows()).isEmpty();
        assertThat(server.preparedGids()).isEmpty();
    }

    @Test
    void copyKeepsTabsNewlinesBackslashesAndNonAsciiTextIntact() throws Exception {
        List<Event> tricky = List.of(new Event("a\tb", "k\ney", "tab\there\nnewline\r\\N back\\slash", 1),
                new Event("2", "\\N", "ünïcødé ✓ 😀", 2), new Event("3", "k", "", 3));
        try (TransactionalWriter<Event, JdbcTransaction> writer = writer(context(0, 1, OptionalLong.empty()))) {
            writer.commit(writeAndPreCommit(writer, 1, tricky));
        }
        assertThat(server.query("SELECT id, key, count, payload FROM " + PostgresSyntax.identifier(table)
                + " ORDER BY count")).containsExactlyElementsOf(asRows(tricky));
    }

    @Test
    void mappedColumnsAreWrittenAndTheTableIsCreatedWithThem() throws Exception {
        try (TransactionalWriter<Event, JdbcTransaction> writer = JdbcSink.builder(server.url(), table)
                .user("postgres").columns(new Columns("Order Id", "customer", "n", "body")).build()
                .createWriter(context(0, 1, OptionalLong.empty()))) {
            writer.commit(writeAndPreCommit(writer, 1, events(0, 2)));
        }
        assertThat(server.query("SELECT \"Order Id\", customer, n, body FROM " + PostgresSyntax.identifier(table)
                + " ORDER BY 1")).containsExactlyElementsOf(asRows(events(0, 2)));
    }

    @Test
    void tooFewPreparedTransactionsForParallelismAndConcurrentCheckpointsAreRefusedAtStart() {
        // The server allows 64; 16 writers x (3 concurrent checkpoints + 1) need 64, 17 need 68.
        SinkContext fits = new SinkContext(job, "sink", 0, 16, 16, OptionalLong.empty(), "a", 3);
        SinkContext tooMany = new SinkContext(job, "sink", 0, 17, 17, OptionalLong.empty(), "a", 3);

        assertThat(JdbcSinkWriter.requiredPreparedTransactions(fits)).isEqualTo(64);
        assertThatThrownBy(() -> writer(tooMany)).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("PostgreSQL max_prepared_transactions is 64; set it to at least 68 ");
    }

    @Test
    void tableNamesAreQuotedIdentifiers() throws Exception {
        table = "Odd \"name\"; DROP TABLE x";
        try (TransactionalWriter<Event, JdbcTransaction> writer = writer(context(0, 1, OptionalLong.empty()))) {
            writer.commit(writeAndPreCommit(writer, 1, events(0, 3)));
        }
        assertThat(rows()).hasSize(3);
    }

    @Test
    void passwordIsNotShownBySinkDescription() {
        assertThat(sink().toString()).doesNotContain(PASSWORD).contains(table);
    }

    private JdbcSink sink() {
        return JdbcSink.builder(server.url(), table).user("postgres").password(PASSWORD).build();
    }

    private TransactionalWriter<Event, JdbcTransaction> writer(SinkContext context) throws Exception {
        return sink().createWriter(context);
    }

    private SinkContext context(int subtask, int parallelism, OptionalLong restored) {
        return new SinkContext(job, "sink", subtask, parallelism, parallelism, restored, "attempt");
    }

    private List<List<String>> rows() throws SQLException {
        List<List<String>> exists = server.query("SELECT 1 FROM pg_tables WHERE tablename = '"
                + table.replace("'", "''") + "'");
        if (exists.isEmpty()) {
            return List.of();
        }
        return server.query("SELECT id, key, count, payload FROM " + PostgresSyntax.identifier(table)
                + " ORDER BY length(id), id");
    }

    private static List<List<String>> asRows(List<Event> events) {
        return events.stream().map(e -> List.of(e.id(), e.key(), Long.toString(e.count()), e.payload())).toList();
    }

    private static List<Event> events(long from, long to) {
        return LongStream.range(from, to).mapToObj(JdbcSinkTest::event).toList();
    }

    private static Event event(long id) {
        return new Event(Long.toString(id), "key-" + (id % 3), "payload '" + id + "\"", id * 10);
    }
}
