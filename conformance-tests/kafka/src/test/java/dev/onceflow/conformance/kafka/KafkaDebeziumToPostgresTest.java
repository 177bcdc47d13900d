package dev.onceflow.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.JobProcess;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user does with a job file only: Debezium-shaped change events of a table, written to a
 * topic by a plain kafka-clients producer (key = the primary key, a tombstone after each delete),
 * land in PostgreSQL by primary key, and the table ends as the events say, each key with its last
 * values and no deleted key present, though the first run dies mid-way and the second resumes
 * from its checkpoint (CHG-4, CHG-5, FMT-8).
 */
@Timeout(300)
class KafkaDebeziumToPostgresTest {

    private static final int EVENTS = 3_000;

    private static EmbeddedKafkaBroker broker;
    private static EmbeddedPostgresServer postgres;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServers() throws IOException {
        broker = EmbeddedKafkaBroker.start();
        postgres = EmbeddedPostgresServer.start(Map.of());
    }

    @AfterAll
    static void stopServers() throws IOException {
        if (broker != null) {
            broker.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void changesOfAPlainProducerLeaveEachKeyAsItsLastChangeThroughACrash() throws Exception {
        broker.createTopic("shop.public.orders", 3);
        Map<Long, List<Object>> expected = new TreeMap<>();
        DebeziumOrderChanges.produce(broker.bootstrapServers(), "shop.public.orders", EVENTS)
                .forEach((id, values) -> expected.put(id, DebeziumOrderChanges.typed(values)));
        assertThat(expected).as("some keys end present").isNotEmpty().as("some keys end deleted")
                .hasSizeLessThan(DebeziumOrderChanges.KEYS);
        Path job = job("shop.public.orders", "mode: write-ahead\n    write-mode: upsert");

        JobProcess crashed = JobProcess.start(job, "latest",
                JobProcess.Faults.haltAt(FaultPoints.SOURCE_BEFORE_BARRIER + "@4"), dir.resolve("crash.log"));
        assertThat(crashed.await(3)).as("halted at the fault point; log:\n%s", crashed.tail())
                .isEqualTo(FaultPoints.HALT_EXIT_CODE);
        assertThat(table()).as("the crash came before the last change; log:\n%s", crashed.tail())
                .isNotEqualTo(expected);
        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("resume.log"));
        assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();

        assertThat(table()).as("each key as its last change left it, deleted keys absent").isEqualTo(expected);
    }

    /** A change event the format cannot apply fails the job by the source's on-error (fail), never skipped. */
    @Test
    void aTruncateEventFailsTheJobNamingItsOffset() throws Exception {
        broker.createTopic("shop.public.truncated", 1);
        try (KafkaProducer<String, String> producer = DebeziumOrderChanges.producer(broker.bootstrapServers())) {
            producer.send(new ProducerRecord<>("shop.public.truncated", "{\"id\":1}",
                    DebeziumOrderChanges.event(null, DebeziumOrderChanges.values(1, 0), "c"))).get();
            producer.send(new ProducerRecord<>("shop.public.truncated", null,
                    DebeziumOrderChanges.event(null, null, "t"))).get();
        }
        Path job = job("shop.public.truncated", "mode: write-ahead\n    write-mode: upsert");
        JobProcess run = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("truncated.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isNotZero().isNotEqualTo(FaultPoints.HALT_EXIT_CODE);
        assertThat(Files.readString(dir.resolve("truncated.log"))).contains("offset 1 of partition shop.public.truncated-0")
                .contains("op 't' (a truncate) empties a whole table");
    }

    /** CHG-3: a changelog into a sink that appends is refused before the job runs, in one line, exit 2. */
    @Test
    void aChangelogIntoAnAppendingSinkIsRefusedBeforeTheJobRuns() throws Exception {
        Path job = job("shop.public.never-read", "mode: write-ahead");
        JobProcess run = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("refused.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isEqualTo(2);
        assertThat(Files.readString(dir.resolve("refused.log"))).contains("sink 'jdbc' appends rows, and its input is "
                + "a changelog with updates and deletes; use a sink that writes by primary key");
    }

    /** The user's job file: the changes read and throttled as {@link DebeziumOrderChanges} says, then the sink. */
    private Path job(String topic, String sinkMode) throws IOException {
        String table = topic.replace('.', '_').replace('-', '_');
        String yaml = """
                name: orders-mirror
                parallelism: 2
                %ssink:
                  type: jdbc
                  options:
                    url: '%s'
                    user: postgres
                    table: %s
                    %s
                checkpoints:
                  interval: 200ms
                  dir: '%s'
                """.formatted(DebeziumOrderChanges.sourceAndThrottle(broker.bootstrapServers(), topic), postgres.url(),
                table, sinkMode,
                dir.resolve("checkpoints-" + table));
        Path file = dir.resolve(table + ".yaml");
        Files.writeString(file, yaml);
        return file;
    }

    /** The mirror table, by id: customer, amount, updated_at. */
    private static Map<Long, List<Object>> table() throws SQLException {
        Map<Long, List<Object>> rows = new TreeMap<>();
        try (Connection connection = DriverManager.getConnection(postgres.url(), "postgres", "");
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT \"id\", \"customer\", \"amount\", \"updated_at\" "
                        + "FROM \"shop_public_orders\"")) {
            while (result.next()) {
                OffsetDateTime at = result.getObject(4, OffsetDateTime.class);
                assertThat(rows.put(result.getLong(1), Arrays.asList(result.getString(2), result.getBigDecimal(3),
                        at == null ? null : at.toInstant()))).as("a key twice").isNull();
            }
        }
        return rows;
    }
}
