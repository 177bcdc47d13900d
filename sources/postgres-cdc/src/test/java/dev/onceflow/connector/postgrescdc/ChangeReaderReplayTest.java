package dev.onceflow.connector.postgrescdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowKind;
import dev.onceflow.spi.source.ReaderOutput;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Rule SRC-1 for the change split, without a job around it: a reader restored from a completed
 * checkpoint's position emits exactly the changes the first reader emitted after it, in the same
 * order (inserts, updates and deletes, checkpoints falling inside transactions), then the changes
 * made since; none twice, none missing, though the first reader read far past the checkpoint.
 */
@Timeout(180)
class ChangeReaderReplayTest {

    private static final int BIG = 30_000;

    private static EmbeddedPostgresServer server;
    private static SourceDatabase db;

    @BeforeAll
    static void startServer() throws Exception {
        server = SourceDatabase.startLogical();
        db = new SourceDatabase(server);
        db.execute("CREATE TABLE log (id bigint PRIMARY KEY, v int NOT NULL)", "INSERT INTO log VALUES (0, 0)",
                "CREATE TABLE big (id bigint PRIMARY KEY, v int NOT NULL)",
                "INSERT INTO big SELECT g, g FROM generate_series(1, " + BIG + ") g");
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aRestoredReaderEmitsExactlyTheChangesAfterItsCheckpoint() throws Exception {
        PostgresCdcSource.Settings settings = settings("log");
        List<String> first = new ArrayList<>();
        ChangeSplit completed;
        int emittedAtCheckpoint;
        try (SourceReader<Row, ChangeSplit> reader = new ChangeReader(settings)) {
            reader.addSplits(List.of(new ChangeSplit(null)));
            reader.start();
            pollUntil(reader, first, 1); // the snapshot's row: the slot exists, later changes are streamed
            transactions(1, 60);
            pollUntil(reader, first, 150);
            completed = reader.snapshotState(1).get(0);
            emittedAtCheckpoint = first.size();
            reader.notifyCheckpointComplete(1);
            pollUntil(reader, first, 300);
            reader.snapshotState(2); // never completes: the job restores checkpoint 1
            pollUntil(reader, first, changes(1, 60) + 1);
        }
        assertThat(first).as("the snapshot row, then every change once").hasSize(changes(1, 60) + 1)
                .doesNotHaveDuplicates();

        transactions(61, 70); // while no reader runs
        List<String> replayed = new ArrayList<>();
        try (SourceReader<Row, ChangeSplit> reader = new ChangeReader(settings)) {
            reader.addSplits(List.of(completed));
            reader.start();
            int expected = first.size() - emittedAtCheckpoint + changes(61, 70);
            pollUntil(reader, replayed, expected);
            assertThat(replayed.subList(0, first.size() - emittedAtCheckpoint))
                    .as("replay from checkpoint 1 (after %s rows)", emittedAtCheckpoint)
                    .isEqualTo(first.subList(emittedAtCheckpoint, first.size()));
            assertThat(replayed).hasSize(expected).doesNotHaveDuplicates();
        }
    }

    /**
     * What the docs say of a crash during the initial snapshot, measured: the restored reader
     * takes the whole snapshot again, of the table as it is then (the rows emitted before the
     * checkpoint come twice, none is missing), then streams the changes made after it, and perhaps
     * again some of the last ones made before it (it holds them already).
     */
    @Test
    void aRestoreFromWithinTheSnapshotTakesItAgainThenStreamsTheChangesSince() throws Exception {
        PostgresCdcSource.Settings settings = settings("big");
        List<String> first = new ArrayList<>();
        ChangeSplit completed;
        try (SourceReader<Row, ChangeSplit> reader = new ChangeReader(settings)) {
            reader.addSplits(List.of(new ChangeSplit(null)));
            reader.start();
            pollUntil(reader, first, 2_000);
            completed = reader.snapshotState(1).get(0);
            reader.notifyCheckpointComplete(1);
        }
        assertThat(first.size()).as("the checkpoint came within the snapshot").isLessThan(BIG);
        db.execute("INSERT INTO big VALUES (" + (BIG + 1) + ", -1)", "UPDATE big SET v = -2 WHERE id = 1",
                "DELETE FROM big WHERE id = 2");

        List<String> replayed = new ArrayList<>();
        try (SourceReader<Row, ChangeSplit> reader = new ChangeReader(settings)) {
            reader.addSplits(List.of(completed));
            reader.start();
            pollUntil(reader, replayed, BIG);
            db.execute("INSERT INTO big VALUES (" + (BIG + 2) + ", -3)"); // made after the new snapshot
            pollUntil(reader, replayed, rows -> rows.contains("INSERT " + (BIG + 2) + "=-3"), "the last change");
        }
        List<String> snapshot = replayed.subList(0, BIG);
        assertThat(snapshot).as("the whole snapshot again").doesNotHaveDuplicates()
                .allMatch(row -> row.startsWith("INSERT "));
        java.util.Set<String> table = new java.util.HashSet<>();
        for (int id = 1; id <= BIG + 1; id++) {
            if (id != 2) {
                table.add("INSERT " + id + "=" + (id == 1 ? -2 : id == BIG + 1 ? -1 : id));
            }
        }
        assertThat(new java.util.HashSet<>(snapshot)).as("the table as it was then").isEqualTo(table);
        assertThat(snapshot).as("the rows emitted before the checkpoint come twice, but those changed since")
                .containsAll(first.stream().filter(row -> !row.equals("INSERT 1=1") && !row.equals("INSERT 2=2"))
                        .toList());
        // The new snapshot holds the changes made since the checkpoint; the slot may send the last of them
        // once more after it (none, some or all seen), in order, which leaves an upsert sink as the table is.
        List<String> since = List.of("INSERT " + (BIG + 1) + "=-1", "UPDATE_AFTER 1=-2", "DELETE 2=-",
                "INSERT " + (BIG + 2) + "=-3");
        List<String> tail = replayed.subList(BIG, replayed.size());
        assertThat(tail).as("then the changes since the new snapshot, after a suffix of those before it")
                .isEqualTo(since.subList(since.size() - tail.size(), since.size()));
    }

    /**
     * Transaction {@code t} inserts keys {@code t*10+1 .. t*10+4}, updates key {@code t*10+1} and
     * deletes key {@code (t-1)*10+2}: 6 changes, 5 rows each for {@code t = 1} (nothing to delete).
     */
    private static void transactions(int from, int to) throws Exception {
        try (Connection connection = db.connect(); Statement statement = connection.createStatement()) {
            for (int t = from; t <= to; t++) {
                connection.setAutoCommit(false);
                for (int k = 1; k <= 4; k++) {
                    statement.execute("INSERT INTO log VALUES (" + (t * 10 + k) + ", " + t + ")");
                }
                statement.execute("UPDATE log SET v = v + 1000 WHERE id = " + (t * 10 + 1));
                statement.execute("DELETE FROM log WHERE id = " + ((t - 1) * 10 + 2));
                connection.commit();
            }
            connection.setAutoCommit(true);
        }
    }

    /** Rows of transactions {@code from..to}: 6 each, but 5 for the first (its delete finds nothing). */
    private static int changes(int from, int to) {
        return (to - from + 1) * 6 - (from == 1 ? 1 : 0);
    }

    /** A reader's settings for {@code table}, with a slot and publication of its own. */
    private static PostgresCdcSource.Settings settings(String table) throws Exception {
        try (Connection connection = db.connect()) {
            return new PostgresCdcSource.Settings("localhost", server.port(), "postgres", "postgres", null,
                    CapturedTable.read(connection, "public." + table, "test"), table + "_slot", table + "_pub",
                    PostgresCdcSource.Snapshot.INITIAL);
        }
    }

    private static void pollUntil(SourceReader<Row, ChangeSplit> reader, List<String> emitted, int atLeast) {
        pollUntil(reader, emitted, rows -> rows.size() >= atLeast, atLeast + " rows");
    }

    private static void pollUntil(SourceReader<Row, ChangeSplit> reader, List<String> emitted,
            java.util.function.Predicate<List<String>> done, String what) {
        ReaderOutput<Row> output = row -> emitted.add(describe(row));
        try {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                reader.pollNext(output);
                return done.test(emitted);
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("the reader emitted " + emitted.size() + " rows, not " + what + "; the last: "
                    + emitted.subList(Math.max(0, emitted.size() - 5), emitted.size()), e);
        }
    }

    private static String describe(Row row) {
        assertThat(row.kind()).isIn(RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE);
        return row.kind().name() + " " + row.get(0) + "=" + (row.kind() == RowKind.DELETE ? "-" : row.get(1));
    }
}
