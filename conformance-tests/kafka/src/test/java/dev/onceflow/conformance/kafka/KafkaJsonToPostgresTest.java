package dev.onceflow.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user does with a job file only: JSON records that a plain kafka-clients producer wrote
 * land in the user's existing PostgreSQL table, under the table's own column names, each exactly
 * once, though the first run dies before a commit and the second resumes from its checkpoint.
 */
@Timeout(300)
class KafkaJsonToPostgresTest {

    private static final int ORDERS = 3_000;
    /**
     * Payments of the by-position case, read at 1,000 per second and subtask: 10 s of input. The
     * Kafka source hands over up to 500 records per poll and the chained throttle spaces them, so a
     * barrier can wait half a second behind a poll; the halt at the third barrier still comes with
     * most of the input unread, also on a busy machine.
     */
    private static final long RECORDS = 20_000;
    /** Which commit the first run halts before, per attempt. */
    private static final int[] HALT_AT = {9, 3, 15};
    private static final ObjectMapper JSON = new ObjectMapper();

    private static EmbeddedKafkaBroker broker;
    private static EmbeddedPostgresServer postgres;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServers() throws IOException {
        broker = EmbeddedKafkaBroker.start();
        postgres = EmbeddedPostgresServer.start(Map.of("max_prepared_transactions", "16"));
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
    void ordersOfAPlainProducerLandOnceInAnExistingTableThroughACrash() throws Exception {
        execute("CREATE TABLE received_orders (order_no bigint PRIMARY KEY, customer_name text NOT NULL, "
                + "amount numeric(10, 2) NOT NULL, placed_at timestamptz NOT NULL, kafka_partition int NOT NULL, "
                + "kafka_offset bigint NOT NULL, loaded_at timestamptz NOT NULL DEFAULT now())");
        broker.createTopic("orders", 3);
        Map<Long, RecordMetadata> written = new HashMap<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
            Map<Long, Future<RecordMetadata>> sends = new HashMap<>();
            for (long id = 0; id < ORDERS; id++) {
                Map<String, Object> order = new LinkedHashMap<>();
                order.put("order_id", id);
                order.put("customer", customer(id));
                order.put("amount", amount(id));
                order.put("placed_at", placedAt(id).toString());
                order.put("note", "a field the table has no column for");
                String value = JSON.writeValueAsString(order);
                sends.put(id, producer.send(new ProducerRecord<>("orders", (int) (id % 3), "o" + id, value)));
            }
            for (Map.Entry<Long, Future<RecordMetadata>> send : sends.entrySet()) {
                written.put(send.getKey(), send.getValue().get());
            }
        }
        Path job = job();

        // The case proves recovery only if the crash cut off the commit of rows: a prepared
        // transaction of the checkpoint the resumed run restores, which it must commit (2PC-5).
        // When the halted commit was of an empty transaction, the case runs again, halting later.
        boolean cutOffRows = false;
        for (int attempt = 0; attempt < HALT_AT.length && !cutOffRows; attempt++) {
            execute("TRUNCATE received_orders");
            deleteRecursively(dir.resolve("checkpoints"));
            JobProcess crashed = JobProcess.start(job, "latest",
                    JobProcess.Faults.haltAt(FaultPoints.SINK_BEFORE_COMMIT + "@" + HALT_AT[attempt]),
                    dir.resolve("crash-" + attempt + ".log"));
            assertThat(crashed.await(3)).as("halted at the fault point; log:\n%s", crashed.tail())
                    .isEqualTo(FaultPoints.HALT_EXIT_CODE);
            List<String> prepared = preparedTransactions();
            Path resumeLog = dir.resolve("resume-" + attempt + ".log");
            JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, resumeLog);
            assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();
            Matcher restored = Pattern.compile("recovered and committed the transaction of checkpoint (\\d+)")
                    .matcher(Files.readString(resumeLog));
            assertThat(restored.find()).as("the resumed run recovered a checkpoint's transactions").isTrue();
            cutOffRows = prepared.stream().anyMatch(gid -> gid.endsWith(":" + restored.group(1)));
            assertEveryOrderOnce(written);
        }
        assertThat(cutOffRows).as("a crash cut off the commit of a prepared transaction holding rows").isTrue();
    }

    /**
     * Records without an id of their own: with topic, partition and offset asked for as fields, they
     * are the rows' primary key, so the idempotent mode upserts a replayed record onto its first
     * write and a crash leaves each record once.
     */
    @Test
    void recordsWithoutAnIdLandOnceByTheirPositionWithUpsertsThroughACrash() throws Exception {
        broker.createTopic("payments", 2);
        Map<String, BigDecimal> written = new HashMap<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
            Map<Long, Future<RecordMetadata>> sends = new HashMap<>();
            for (long i = 0; i < RECORDS; i++) {
                String value = JSON.writeValueAsString(Map.of("payer", customer(i), "amount", amount(i)));
                sends.put(i, producer.send(new ProducerRecord<>("payments", (int) (i % 2), null, value)));
            }
            for (Map.Entry<Long, Future<RecordMetadata>> send : sends.entrySet()) {
                RecordMetadata where = send.getValue().get();
                written.put(where.partition() + "/" + where.offset(), amount(send.getKey()));
            }
        }
        String yaml = """
                name: payments-by-position
                parallelism: 2
                source:
                  type: kafka
                  options:
                    bootstrap-servers: '%s'
                    topics: payments
                    bounded: true
                    metadata-fields: topic, partition, offset
                  format: json
                  schema:
                    fields:
                      payer: string not null
                      amount: decimal(10, 2) not null
                steps:
                  - {type: throttle, options: {rows-per-second: 2000}}
                sink:
                  type: jdbc
                  options:
                    url: '%s'
                    user: postgres
                    table: payments_by_position
                    mode: idempotent
                checkpoints:
                  interval: 300ms
                  dir: '%s'
                """.formatted(broker.bootstrapServers(), postgres.url(), dir.resolve("checkpoints"));
        Path job = dir.resolve("payments.yaml");
        Files.writeString(job, yaml);

        JobProcess crashed = JobProcess.start(job, "latest",
                JobProcess.Faults.haltAt(FaultPoints.SOURCE_BEFORE_BARRIER + "@6"), dir.resolve("crash.log"));
        assertThat(crashed.await(3)).as("halted at the fault point; log:\n%s", crashed.tail())
                .isEqualTo(FaultPoints.HALT_EXIT_CODE);
        long beforeResume = count("SELECT count(*) FROM payments_by_position");
        assertThat(beforeResume).as("the crash came mid-run; log:\n%s", crashed.tail()).isBetween(1L, RECORDS - 1);
        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("resume.log"));
        assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();

        Map<String, BigDecimal> landed = new HashMap<>();
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT \"topic\", \"partition\", \"offset\", amount "
                        + "FROM payments_by_position")) {
            while (result.next()) {
                assertThat(result.getString(1)).isEqualTo("payments");
                assertThat(landed.put(result.getInt(2) + "/" + result.getLong(3), result.getBigDecimal(4)))
                        .as("a record twice").isNull();
            }
        }
        assertThat(landed).isEqualTo(written);
        assertThat(count("SELECT count(*) FROM information_schema.key_column_usage WHERE table_name = "
                + "'payments_by_position' AND column_name IN ('topic', 'partition', 'offset')"))
                .as("the created table is keyed by the records' position").isEqualTo(3);
    }

    private static long count(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        }
    }

    /** The table holds every order once, with its values, partition and offset. */
    private static void assertEveryOrderOnce(Map<Long, RecordMetadata> written) throws SQLException {
        List<String> wrong = new ArrayList<>();
        long rows = 0;
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT order_no, customer_name, amount, placed_at, "
                        + "kafka_partition, kafka_offset FROM received_orders ORDER BY order_no")) {
            while (result.next()) {
                long id = result.getLong(1);
                rows++;
                RecordMetadata where = written.get(id);
                List<Object> expected = List.of(id, customer(id), amount(id), placedAt(id), where.partition(),
                        where.offset());
                List<Object> actual = List.of(result.getLong(1), result.getString(2), result.getBigDecimal(3),
                        result.getObject(4, OffsetDateTime.class).toInstant(), result.getInt(5), result.getLong(6));
                if (!expected.equals(actual)) {
                    wrong.add(expected + " became " + actual);
                }
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(rows).as("each order once (order_no is the key: a duplicate would have failed the job)")
                .isEqualTo(ORDERS);
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    private Path job() throws IOException {
        String yaml = """
                name: orders-to-postgres
                parallelism: 2
                source:
                  type: kafka
                  options:
                    bootstrap-servers: '%s'
                    topics: orders
                    bounded: true
                    metadata-fields: partition, offset
                  format: json
                  schema:
                    fields:
                      order_id: long not null
                      customer: string not null
                      amount: decimal(10, 2) not null
                      placed_at: timestamptz not null
                steps:
                  - {type: throttle, options: {rows-per-second: 300}}
                sink:
                  type: jdbc
                  options:
                    url: '%s'
                    user: postgres
                    table: received_orders
                    create-table: never
                    columns: order_id=order_no, customer=customer_name, partition=kafka_partition, offset=kafka_offset
                checkpoints:
                  interval: 200ms
                  dir: '%s'
                """.formatted(broker.bootstrapServers(), postgres.url(), dir.resolve("checkpoints"));
        Path file = dir.resolve("job.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    private static String customer(long id) {
        return "customer " + id % 11 + (id % 5 == 0 ? " Zoë \"quoted\"\ttab" : "");
    }

    private static BigDecimal amount(long id) {
        return BigDecimal.valueOf(id * 7919 % 100_000, 2);
    }

    private static Instant placedAt(long id) {
        return Instant.parse("2026-12-06T08:00:00.123456Z").plusSeconds(id * 61);
    }

    private static List<String> preparedTransactions() throws SQLException {
        List<String> gids = new ArrayList<>();
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT gid FROM pg_prepared_xacts")) {
            while (result.next()) {
                gids.add(result.getString(1));
            }
        }
        return gids;
    }

    private static void execute(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(postgres.url(), "postgres", "");
    }
}
