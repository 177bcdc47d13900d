package dev.onceflow.connector.postgrescdc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.JobProcess;
import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job the source cannot serve is refused before it runs, exit status 2, in one line naming what
 * to change: a table without a primary key, a server without logical decoding, a slot another
 * reader holds, an appending sink. The password is in no line of the output.
 */
@Timeout(300)
class PostgresCdcRefusalsTest {

    private static final String PASSWORD = "s3cret-Pa55";

    private static EmbeddedPostgresServer server;
    private static SourceDatabase db;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServer() throws Exception {
        server = SourceDatabase.startLogical();
        db = new SourceDatabase(server);
        db.execute("CREATE TABLE keyless (id bigint, name text)", "CREATE TABLE keyed (id bigint PRIMARY KEY)",
                "ALTER ROLE postgres PASSWORD '" + PASSWORD + "'");
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aTableWithoutPrimaryKeyIsRefused() throws Exception {
        assertRefused(server, "public.keyless", "slot: free_slot", "jdbc",
                "source 'postgres-cdc': table 'public.keyless' has no primary key; a changelog names each changed row "
                        + "by its key: add one (ALTER TABLE ... ADD PRIMARY KEY)");
    }

    @Test
    void aServerWithoutLogicalDecodingIsRefused() throws Exception {
        try (EmbeddedPostgresServer replicaLevel = EmbeddedPostgresServer.start(Map.of())) {
            new SourceDatabase(replicaLevel).execute("CREATE TABLE keyed (id bigint PRIMARY KEY)");
            assertRefused(replicaLevel, "keyed", "slot: free_slot", "jdbc",
                    "source 'postgres-cdc': the server's wal_level is 'replica', and change data capture needs logical "
                            + "decoding; set wal_level = logical in postgresql.conf and restart the server");
        }
    }

    @Test
    void aSlotAnotherReaderHoldsIsRefused() throws Exception {
        db.execute("SELECT pg_create_logical_replication_slot('held_slot', 'pgoutput')");
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), SlotHolder.class.getName(), server.url(), PASSWORD, "held_slot")
                .redirectErrorStream(true).start();
        try {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).until(() -> db.count(
                    "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'held_slot' AND active") == 1);
            assertRefused(server, "keyed", "slot: held_slot", "jdbc",
                    "source 'postgres-cdc': replication slot 'held_slot' is in use by another reader (server process ");
        } finally {
            holder.destroyForcibly().waitFor();
        }
    }

    @Test
    void anAppendingSinkIsRefused() throws Exception {
        assertRefused(server, "keyed", "slot: free_slot", "append",
                "sink 'jdbc' appends rows, and its input is a changelog with updates and deletes; use a sink that "
                        + "writes by primary key (jdbc or kafka with write-mode: upsert)");
    }

    private void assertRefused(EmbeddedPostgresServer on, String table, String extraOption, String sink, String line)
            throws Exception {
        Path job = dir.resolve("job.yaml");
        Files.writeString(job, """
                name: refused
                source:
                  type: postgres-cdc
                  options:
                    url: '%1$s'
                    user: postgres
                    password: '%2$s'
                    tables: %3$s
                    %4$s
                sink:
                  type: jdbc
                  options:
                    url: '%1$s'
                    user: postgres
                    password: '%2$s'
                    table: copy
                    mode: write-ahead
                    %5$s
                checkpoints:
                  dir: '%6$s'
                """.formatted(on.url(), PASSWORD, table, extraOption,
                sink.equals("jdbc") ? "write-mode: upsert" : "write-mode: insert", dir.resolve("checkpoints")));
        Path log = dir.resolve("refused.log");
        JobProcess process = JobProcess.start(job, "latest", JobProcess.Faults.NONE, log);
        assertThat(process.await(2)).as("log:\n%s", process.tail()).isEqualTo(2);
        String output = Files.readString(log);
        assertThat(output).contains(line).doesNotContain(PASSWORD);
    }
}
