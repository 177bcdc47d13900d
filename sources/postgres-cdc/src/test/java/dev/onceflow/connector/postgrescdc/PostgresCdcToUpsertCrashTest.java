package dev.onceflow.connector.postgrescdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.conformance.JobProcess;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table's snapshot and its changes, made while the job runs, while it is down and after it
 * resumed, land in a JDBC upsert table on the same server through three crashes (after a sink's
 * send, at a source barrier, between a checkpoint's completion and its notification): in the end
 * the target equals the source key by key, with every value, and no deleted key is back.
 */
@Timeout(600)
class PostgresCdcToUpsertCrashTest {

    private static final String COLUMNS = "id, name, price, qty, active, born, seen_local, seen_at, payload";

    private static EmbeddedPostgresServer server;
    private static SourceDatabase db;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServer() throws Exception {
        server = SourceDatabase.startLogical();
        db = new SourceDatabase(server);
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theTargetEqualsTheSourceKeyByKeyThroughCrashes() throws Exception {
        db.execute("CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL, price numeric(10, 2), qty int, "
                        + "active boolean, born date, seen_local timestamp, seen_at timestamptz, payload bytea)",
                "INSERT INTO items SELECT g, 'item ' || g, g * 1.25, g % 7, g % 2 = 0, DATE '2026-01-01' + g, "
                        + "TIMESTAMP '2026-12-06 08:00:00.123456' + g * INTERVAL '1 minute', "
                        + "TIMESTAMPTZ '2026-12-06 08:00:00.654321+00' + g * INTERVAL '1 second', "
                        + "decode(lpad(to_hex(g), 4, '0'), 'hex') FROM generate_series(1, 300) g");
        Changes changes = new Changes(301);
        Path job = job();

        for (String halt : List.of(FaultPoints.SINK_WAL_AFTER_SEND + "@20", FaultPoints.SOURCE_BEFORE_BARRIER + "@16",
                FaultPoints.COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY + "@18")) {
            awaitSlotFree();
            JobProcess crashed = JobProcess.start(job, "latest", JobProcess.Faults.haltAt(halt),
                    dir.resolve("crash.log"));
            changes.whileRunning(crashed);
            assertThat(crashed.await(3)).as("halted at %s; log:\n%s", halt, crashed.tail())
                    .isEqualTo(FaultPoints.HALT_EXIT_CODE);
            changes.make(200); // while the job is down
        }
        awaitSlotFree();
        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("resume.log"));
        try {
            changes.make(300);
            await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                    assertThat(differences(db.rows("SELECT " + COLUMNS + " FROM items"),
                            db.rows("SELECT " + COLUMNS + " FROM items_copy")))
                            .as("keys whose target row differs from the source's; log:\n%s",
                                    resumed.isAlive() ? "(running)" : resumed.tail())
                            .isEmpty());
        } finally {
            resumed.kill();
        }
        Set<Long> target = db.rows("SELECT id FROM items_copy").keySet();
        assertThat(changes.deleted).as("deletes were made").hasSizeGreaterThan(100);
        assertThat(target).as("no deleted key is back").doesNotContainAnyElementsOf(changes.deleted);
        assertThat(changes.made).as("changes made in all").isGreaterThan(1000);
    }

    /** Each key whose rows differ: missing in the target, back though deleted, or with other values. */
    private static List<String> differences(Map<Long, List<String>> source, Map<Long, List<String>> target) {
        List<String> differences = new java.util.ArrayList<>();
        source.forEach((key, row) -> {
            if (!row.equals(target.get(key))) {
                differences.add(key + ": source " + row + ", target " + target.get(key));
            }
        });
        target.keySet().stream().filter(key -> !source.containsKey(key))
                .forEach(key -> differences.add(key + ": deleted in the source, in the target " + target.get(key)));
        return differences.size() > 20 ? differences.subList(0, 20) : differences;
    }

    /** Until no reader holds the slot: the server ends a dead job's connection on its own time. */
    private static void awaitSlotFree() {
        await().atMost(Duration.ofMinutes(1)).until(() -> db.count(
                "SELECT count(*) FROM pg_replication_slots WHERE active") == 0);
    }

    private Path job() throws Exception {
        Path file = dir.resolve("cdc.yaml");
        Files.writeString(file, """
                name: cdc-items
                source:
                  type: postgres-cdc
                  options:
                    url: '%1$s'
                    user: postgres
                    tables: public.items
                sink:
                  type: jdbc
                  options:
                    url: '%1$s'
                    user: postgres
                    table: items_copy
                    mode: write-ahead
                    write-mode: upsert
                checkpoints:
                  interval: 200ms
                  dir: '%2$s'
                """.formatted(server.url(), dir.resolve("checkpoints")));
        return file;
    }

    /** Inserts, updates and deletes, each its own transaction, on keys chosen so that every kind recurs. */
    private static final class Changes {

        private long nextId;
        private long made;
        final Set<Long> deleted = new HashSet<>();

        Changes(long firstNewId) {
            this.nextId = firstNewId;
        }

        /** Paced at about 300 a second, until {@code job} has exited (or 30,000 changes). */
        void whileRunning(JobProcess job) throws SQLException {
            AtomicBoolean stop = new AtomicBoolean();
            for (int i = 0; i < 30_000 && job.isAlive() && !stop.get(); i++) {
                make(1);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3)); // pacing, not synchronisation
            }
        }

        void make(int count) throws SQLException {
            try (Connection connection = db.connect()) {
                for (int i = 0; i < count; i++) {
                    change(connection);
                }
            }
        }

        private void change(Connection connection) throws SQLException {
            long step = made++;
            long key = 1 + (step * 7919) % (nextId - 1);
            switch ((int) (step % 6)) {
                case 0, 1 -> {
                    long id = nextId++;
                    update(connection, "INSERT INTO items VALUES (?, 'new ' || ?, ?::numeric / 100, 1, true, "
                            + "DATE '2027-03-01', TIMESTAMP '2027-01-01 00:00:00.000001', now(), '\\x00ff'::bytea)",
                            id, id, id);
                    deleted.remove(id);
                }
                case 2, 3 -> update(connection, "UPDATE items SET name = 'changed ' || ?, price = price + 1, "
                        + "qty = coalesce(qty, 0) + 1, active = NOT active, seen_at = now() WHERE id = ?", step, key);
                case 4 -> {
                    update(connection, "DELETE FROM items WHERE id = ?", key);
                    deleted.add(key);
                }
                default -> {
                    // a key deleted and inserted again in one transaction: the last change wins
                    connection.setAutoCommit(false);
                    update(connection, "DELETE FROM items WHERE id = ?", key);
                    update(connection, "INSERT INTO items (id, name, qty) VALUES (?, 'again ' || ?, 0)", key, step);
                    connection.commit();
                    connection.setAutoCommit(true);
                    deleted.remove(key);
                }
            }
        }

        private static void update(Connection connection, String sql, long... values) throws SQLException {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                for (int i = 0; i < values.length; i++) {
                    statement.setLong(i + 1, values[i]);
                }
                statement.executeUpdate();
            }
        }
    }
}
