package dev.onceflow.connector.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowKind;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.IdempotentWriter;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.WriteAheadWriter;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A changelog (inserts, updates as before/after pairs, deletes, keys deleted and inserted again
 * within one batch) written in {@code write-mode: upsert} through the write-ahead and idempotent
 * contracts of the JDBC sink, with a crash between checkpoints and the replay a restore makes; the oracle is the
 * final state the changelog describes, key by key with values, and no deleted key present
 * (CHG-4, CHG-5). One subclass per database. When a case fails, look at
 * {@code RowWriter.lastPerKey} and {@code RowWriter.executeChanges}.
 */
@SuppressWarnings("try") // the SPI's close() throws Exception
@Timeout(120) // a change waiting on a lock of a dead attempt fails the case instead of hanging the build
abstract class ChangelogCases {

    private static final AtomicInteger CASES = new AtomicInteger();

    static final Schema ACCOUNTS = Schema.of(List.of(
            Field.of("id", DataType.LONG),
            Field.of("owner", DataType.STRING),
            Field.of("balance", DataType.LONG)), List.of("id"));

    /** Small, so a key's changes span batches and several keys change within one. */
    private static final int BATCH = 7;

    String table;
    String job;

    abstract String url();

    abstract String user();

    /** {@code SELECT id, owner, balance} of the table, as text, in id order. */
    abstract List<List<String>> rows(String table) throws SQLException;

    @BeforeEach
    void freshNames() {
        int n = CASES.incrementAndGet();
        table = "accounts_" + n;
        job = "changes" + n;
    }

    @Test
    void exactlyOnceModeRefusesUpsertsThatWouldWaitOnTheirOwnPreparedTransaction() {
        assertThatThrownBy(() -> builder().build(JdbcMode.EXACTLY_ONCE)).isInstanceOf(OptionException.class)
                .hasMessageStartingWith("write-mode upsert does not work with mode exactly-once: a prepared "
                        + "transaction locks its rows until its commit");
    }

    @Test
    void required_chg4_idempotentReplayOfAFlushedSuffixLeavesTheSameState() throws Exception {
        List<Row> changes = changelog(300, 17);
        JdbcUpsertSink<Row> sink = builder().buildIdempotent();
        try (IdempotentWriter<Row> writer = sink.createWriter(context(OptionalLong.empty()))) {
            for (int i = 0; i < 200; i++) {
                writer.write(changes.get(i));
                if (i == 99) {
                    writer.flush(); // checkpoint 1's barrier
                }
            }
            // crash before checkpoint 2: what was sent since stays, and the restore replays from 100
        }
        try (IdempotentWriter<Row> writer = sink.createWriter(context(OptionalLong.of(1)))) {
            for (Row row : changes.subList(100, changes.size())) {
                writer.write(row);
            }
            writer.flush();
        }
        assertThat(rows(table)).isEqualTo(expected(changes));
    }

    @Test
    void required_chg4_writeAheadAppliesTheChangesOfEachCheckpointOnceAcrossACrash() throws Exception {
        List<Row> changes = changelog(400, 23);
        JdbcWriteAheadSink<Row> sink = builder().committerTable(table + "_markers").buildWriteAhead();
        // the changes as a restore reads them back from the checkpoint
        List<Row> restored = new ArrayList<>();
        for (Row row : changes) {
            byte[] bytes = sink.recordSerializer().serialize(row);
            restored.add(sink.recordSerializer().deserialize(sink.recordSerializer().version(), bytes));
        }
        assertThat(restored).isEqualTo(changes);
        try (CheckpointCommitter committer = sink.createCommitter(context(OptionalLong.empty()));
                WriteAheadWriter<Row> writer = sink.createWriter(context(OptionalLong.empty()))) {
            committer.open();
            assertThat(writer.sendValues(restored.subList(0, 150), 0, 1, 0L)).isTrue();
            // crash after the send, before the runtime marks checkpoint 1 done
        }
        assertThat(rows(table)).as("state after checkpoint 1").isEqualTo(expected(changes.subList(0, 150)));
        try (CheckpointCommitter committer = sink.createCommitter(context(OptionalLong.of(1)));
                WriteAheadWriter<Row> writer = sink.createWriter(context(OptionalLong.of(1)))) {
            committer.open();
            // the restore sends checkpoint 1 again (WAL-1): its marker makes it a no-op
            assertThat(writer.sendValues(restored.subList(0, 150), 0, 1, 0L)).isTrue();
            assertThat(writer.sendValues(restored.subList(150, changes.size()), 0, 2, 0L)).isTrue();
        }
        assertThat(rows(table)).isEqualTo(expected(changes));
    }

    @Test
    void required_chg5_aKeyUpdatedDeletedAndInsertedAgainInOneBatchEndsAsItsLastChange() throws Exception {
        List<Row> changes = List.of(
                account(RowKind.INSERT, 1, "ada", 10),
                account(RowKind.INSERT, 2, "bob", 20),
                account(RowKind.UPDATE_BEFORE, 1, "ada", 10),
                account(RowKind.UPDATE_AFTER, 1, "ada", 11),
                account(RowKind.DELETE, 1, "ada", 11),
                account(RowKind.DELETE, 2, "bob", 20),
                account(RowKind.INSERT, 2, "bea", 21));
        JdbcWriteAheadSink<Row> sink = builder().batchSize(100).committerTable(table + "_markers").buildWriteAhead();
        try (CheckpointCommitter committer = sink.createCommitter(context(OptionalLong.empty()));
                WriteAheadWriter<Row> writer = sink.createWriter(context(OptionalLong.empty()))) {
            committer.open();
            assertThat(writer.sendValues(changes, 0, 1, 0L)).isTrue();
        }
        assertThat(rows(table)).containsExactly(List.of("2", "bea", "21"));
    }

    @Test
    void required_chg3_anAppendingSinkGivenADeleteFailsNamingTheSinkInsteadOfAppendingIt() throws Exception {
        JdbcSink<Row> sink = JdbcSink.builder(url(), table).user(user()).committerTable(table + "_checkpoints")
                .rows(ACCOUNTS, Map.of()).build();
        try (TransactionalWriter<Row, JdbcTransaction> writer = sink.createWriter(context(OptionalLong.empty()))) {
            JdbcTransaction open = writer.beginTransaction(1);
            writer.write(open, account(RowKind.INSERT, 1, "ada", 10));
            assertThatThrownBy(() -> writer.write(open, account(RowKind.DELETE, 1, "ada", 10)))
                    .hasMessage("sink 'jdbc' appends rows to table " + table + " and was given a DELETE row, record "
                            + "id '1'; set write-mode: upsert to apply updates and deletes by primary key");
        }
    }

    @Test
    void upsertWriteModeNeedsAPrimaryKey() {
        Schema keyless = Schema.of(Field.of("owner", DataType.STRING));
        assertThatThrownBy(() -> JdbcSink.builder(url(), table).user(user()).writeMode(WriteMode.UPSERT)
                .rows(keyless, Map.of()).build(JdbcMode.EXACTLY_ONCE))
                .isInstanceOf(OptionException.class)
                .hasMessageStartingWith("write-mode upsert applies changes by primary key, and the input has none");
    }

    JdbcSink.Builder<Row> builder() {
        return JdbcSink.builder(url(), table).user(user()).committerTable(table + "_checkpoints")
                .writeMode(WriteMode.UPSERT).writeMethod(WriteMethod.INSERT).batchSize(BATCH).rows(ACCOUNTS, Map.of());
    }

    private SinkContext context(OptionalLong restored) {
        return new SinkContext(job, "sink", 0, 1, 1, restored, "attempt");
    }

    static Row account(RowKind kind, long id, String owner, long balance) {
        return Row.of(ACCOUNTS, id, owner, balance).withKind(kind);
    }

    /**
     * {@code n} changes over {@code keys} keys, the same every run: a missing key is inserted; a
     * present one is updated (a before and an after row) or, every third time, deleted.
     */
    static List<Row> changelog(int n, int keys) {
        Map<Long, Row> table = new TreeMap<>();
        List<Row> changes = new ArrayList<>();
        long seed = 42;
        while (changes.size() < n) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            long id = Math.floorMod(seed >>> 33, keys);
            long balance = changes.size();
            Row before = table.get(id);
            if (before == null) {
                Row inserted = account(RowKind.INSERT, id, "owner-" + id, balance);
                table.put(id, inserted);
                changes.add(inserted);
            } else if (Math.floorMod(seed >>> 40, 3) == 0) {
                table.remove(id);
                changes.add(before.withKind(RowKind.DELETE));
            } else {
                changes.add(before.withKind(RowKind.UPDATE_BEFORE));
                Row after = account(RowKind.UPDATE_AFTER, id, "owner-" + id + "-" + balance, balance);
                table.put(id, after);
                changes.add(after);
            }
        }
        return changes;
    }

    /** The rows {@code changes} leave, as {@link #rows} reads them: id order, values as text. */
    static List<List<String>> expected(List<Row> changes) {
        Map<Long, List<String>> state = new TreeMap<>();
        for (Row change : changes) {
            long id = (Long) change.get("id");
            switch (change.kind()) {
                case INSERT, UPDATE_AFTER -> state.put(id, List.of(Long.toString(id), (String) change.get("owner"),
                        change.get("balance").toString()));
                case DELETE -> state.remove(id);
                case UPDATE_BEFORE -> { }
            }
        }
        assertThat(changes).extracting(Row::kind).contains(RowKind.DELETE, RowKind.UPDATE_AFTER);
        return new ArrayList<>(state.values());
    }
}
