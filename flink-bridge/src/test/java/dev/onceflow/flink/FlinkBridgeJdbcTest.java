package dev.onceflow.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.jdbc.JdbcSink;
import dev.onceflow.spi.record.Event;
import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The JDBC sink's three contracts on Flink against a real PostgreSQL (embedded, started by the
 * test): two-phase commit with prepared transactions ({@link OnceflowSink}), write-ahead
 * ({@link OnceflowWriteAheadSink}) and upsert ({@link OnceflowIdempotentSink}). The job fails once
 * after rows became visible and Flink restarts it from its last checkpoint; then the table holds
 * every id once with per-key running counts exactly 1..n, and no prepared transaction is left.
 */
@Timeout(180)
class FlinkBridgeJdbcTest {

    private static final int KEYS = 10;
    private static final long ROWS = 20_000;

    @RegisterExtension
    static final MiniClusterExtension FLINK = BridgeJobs.miniCluster();

    private static EmbeddedPostgresServer postgres;
    private static volatile String url;
    private static volatile String table;
    private static final AtomicBoolean FAILED_ONCE = new AtomicBoolean();

    enum Mode {
        TWO_PHASE_COMMIT, WRITE_AHEAD, IDEMPOTENT
    }

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = EmbeddedPostgresServer.start(Map.of("max_prepared_transactions", "64"));
        url = postgres.url();
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    @BeforeEach
    void setUp() {
        FAILED_ONCE.set(false);
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(url, "postgres", "");
    }

    /** Fails once, at the first id of a hundred seen once the table shows committed rows. */
    private static Event failOnceAfterACommit(Event event) throws SQLException {
        if (!FAILED_ONCE.get() && Long.parseLong(event.id()) % 100 == 0 && visibleRows() > 0
                && FAILED_ONCE.compareAndSet(false, true)) {
            throw new IllegalStateException("injected failure at id " + event.id());
        }
        return event;
    }

    private static long visibleRows() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            ResultSet exists = statement.executeQuery("SELECT to_regclass('" + table + "') IS NOT NULL");
            exists.next();
            if (!exists.getBoolean(1)) {
                return 0;
            }
            ResultSet count = statement.executeQuery("SELECT count(*) FROM " + table);
            count.next();
            return count.getLong(1);
        }
    }

    private static Sink<Event> sink(Mode mode) {
        String jdbcUrl = url;
        String name = table;
        return switch (mode) {
            case TWO_PHASE_COMMIT -> OnceflowSink.of(() -> JdbcSink.builder(jdbcUrl, name).user("postgres").build(), "rows");
            case WRITE_AHEAD -> OnceflowWriteAheadSink.of(
                    () -> JdbcSink.builder(jdbcUrl, name).user("postgres").buildWriteAhead(), "rows");
            case IDEMPOTENT -> OnceflowIdempotentSink.of(
                    () -> JdbcSink.builder(jdbcUrl, name).user("postgres").buildIdempotent(), "rows");
        };
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aFailureAfterRowsWereCommittedLeavesEveryIdOnceWithExactCounts(Mode mode) throws Exception {
        table = "events_" + mode.name().toLowerCase(java.util.Locale.ROOT);
        StreamExecutionEnvironment env = BridgeJobs.environment();
        env.fromSource(OnceflowSource.of(() -> DatagenSource.builder().rows(ROWS).keys(KEYS).rowsPerSecond(10_000)
                                .splits(4).build(), TypeInformation.of(Event.class)),
                        WatermarkStrategy.noWatermarks(), "events").uid("events")
                .map(FlinkBridgeJdbcTest::failOnceAfterACommit).uid("fail-once")
                .keyBy(Event::key)
                .process(new FlinkBridgeJobTest.CountPerKey()).uid("count")
                .sinkTo(sink(mode)).uid("rows");

        BridgeJobs.runToEnd(env, "jdbc-" + mode, 120);

        assertThat(FAILED_ONCE).as("the failure was injected after rows were committed").isTrue();
        Map<String, Integer> occurrences = new HashMap<>();
        Map<String, List<Long>> counts = new TreeMap<>();
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT id, key, count FROM " + table)) {
            while (rows.next()) {
                occurrences.merge(rows.getString(1), 1, Integer::sum);
                counts.computeIfAbsent(rows.getString(2), k -> new ArrayList<>()).add(rows.getLong(3));
            }
        }
        BridgeJobs.assertExactlyOnce(occurrences, counts, ROWS, KEYS);
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet prepared = statement.executeQuery("SELECT count(*) FROM pg_prepared_xacts")) {
            prepared.next();
            assertThat(prepared.getLong(1)).as("prepared transactions left behind").isZero();
        }
    }
}
