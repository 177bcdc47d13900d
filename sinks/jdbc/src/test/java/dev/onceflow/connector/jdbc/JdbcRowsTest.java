package dev.onceflow.connector.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.IdempotentWriter;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.WriteAheadWriter;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rows of any schema in a real PostgreSQL table: every scalar type written by COPY and by INSERT
 * reads back as it was, fields go to a user's own columns, upserts replace by the primary key, the
 * write-ahead mode keeps rows in its checkpoint, and a refused row is named by its key.
 */
@SuppressWarnings("try") // the SPI's close() throws Exception
class JdbcRowsTest {

    private static final AtomicInteger CASES = new AtomicInteger();

    @RegisterExtension
    static final PostgresServer server = new PostgresServer(16);

    private String table;
    private String job;

    @BeforeEach
    void freshNames() {
        int n = CASES.incrementAndGet();
        table = "Typed rows " + n;
        job = "rows" + n;
    }

    @AfterEach
    void noPreparedTransactionsOutliveATest() throws SQLException {
        server.rollbackAllPrepared();
    }

    @Test
    void everyTypeReadsBackAsWrittenByCopy() throws Exception {
        roundTrip(WriteMethod.COPY);
    }

    @Test
    void everyTypeReadsBackAsWrittenByInsert() throws Exception {
        roundTrip(WriteMethod.INSERT);
    }

    private void roundTrip(WriteMethod method) throws Exception {
        List<Row> rows = TypedRows.rows(true);
        JdbcSink<Row> sink = builder().writeMethod(method).rows(TypedRows.SCHEMA, Map.of()).build();
        try (TransactionalWriter<Row, JdbcTransaction> writer = sink.createWriter(context())) {
            JdbcTransaction open = writer.beginTransaction(1);
            for (Row row : rows) {
                writer.write(open, row);
            }
            writer.commit(writer.preCommit(open));
        }

        List<Row> read = readBack();
        assertThat(read).hasSameSizeAs(rows);
        for (int i = 0; i < rows.size(); i++) {
            assertThat(TypedRows.difference(rows.get(i), read.get(i))).isNull();
        }
        assertThat(server.query("SELECT column_name, data_type, is_nullable FROM information_schema.columns "
                + "WHERE table_name = '" + table + "' AND column_name IN ('id', 'amount', 'instant') ORDER BY column_name"))
                .containsExactly(List.of("amount", "numeric", "YES"), List.of("id", "bigint", "NO"),
                        List.of("instant", "timestamp with time zone", "YES"));
    }

    @Test
    void anExistingTableGetsEachFieldInTheColumnMappedToIt() throws Exception {
        execute("CREATE TABLE " + quoted() + " (\"Order Id\" bigint PRIMARY KEY, customer_name text NOT NULL, "
                + "amount numeric(12, 2), received timestamptz NOT NULL DEFAULT now())");
        Schema orders = Schema.of(List.of(Field.of("order_id", DataType.LONG), Field.of("customer", DataType.STRING),
                Field.of("amount", DataType.decimal(12, 2))), List.of("order_id"));
        JdbcSink<Row> sink = builder().createTable(CreateTable.NEVER)
                .rows(orders, Map.of("order_id", "Order Id", "customer", "customer_name")).build();
        try (TransactionalWriter<Row, JdbcTransaction> writer = sink.createWriter(context())) {
            JdbcTransaction open = writer.beginTransaction(1);
            writer.write(open, Row.of(orders, 7L, "Zoë", new BigDecimal("12.50")));
            writer.write(open, Row.of(orders, 8L, "Ann", null));
            writer.commit(writer.preCommit(open));
        }

        assertThat(server.query("SELECT \"Order Id\", customer_name, amount FROM " + quoted() + " ORDER BY 1"))
                .containsExactly(List.of("7", "Zoë", "12.50"), Arrays.asList("8", "Ann", null));
    }

    @Test
    void aTableWithoutAColumnForAFieldStopsTheWriterNamingTheColumn() throws Exception {
        execute("CREATE TABLE " + quoted() + " (order_id bigint PRIMARY KEY, customer text)");
        Schema orders = Schema.of(Field.of("order_id", DataType.LONG), Field.of("customer", DataType.STRING),
                Field.of("amount", DataType.decimal(12, 2)));
        JdbcSink<Row> sink = builder().rows(orders, Map.of()).build();

        assertThatThrownBy(() -> sink.createWriter(context()).close())
                .isInstanceOf(SQLException.class)
                .hasMessage("table " + table + " has no column 'amount' for the sink to write; its columns: order_id, "
                        + "customer. Map fields to other columns with option 'columns: field=column, ...'");
    }

    @Test
    void withCreateTableNeverAMissingTableIsAnErrorAndNothingIsCreated() {
        JdbcSink<Row> sink = builder().createTable(CreateTable.NEVER).rows(TypedRows.SCHEMA, Map.of()).build();

        assertThatThrownBy(() -> sink.createWriter(context()).close())
                .isInstanceOf(SQLException.class)
                .hasMessageStartingWith("cannot read the columns of table " + table + " in PostgreSQL (does it exist?");
    }

    @Test
    void upsertsReplaceRowsByTheCompositePrimaryKeyAndTheLastRecordOfABatchWins() throws Exception {
        Schema stock = Schema.of(List.of(Field.of("warehouse", DataType.STRING), Field.of("sku", DataType.BYTES),
                Field.of("quantity", DataType.INT)), List.of("warehouse", "sku"));
        try (IdempotentWriter<Row> writer = builder().rows(stock, Map.of()).buildIdempotent().createWriter(context())) {
            writer.write(Row.of(stock, "north", new byte[] {1}, 5));
            writer.write(Row.of(stock, "north", new byte[] {2}, 6));
            writer.write(Row.of(stock, "north", new byte[] {1}, 7));
            writer.flush();
            writer.write(Row.of(stock, "south", new byte[] {1}, 8));
            writer.write(Row.of(stock, "north", new byte[] {2}, 9));
            writer.flush();
        }

        assertThat(server.query("SELECT warehouse, encode(sku, 'hex'), quantity FROM " + quoted() + " ORDER BY 1, 2"))
                .containsExactly(List.of("north", "01", "7"), List.of("north", "02", "9"), List.of("south", "01", "8"));
    }

    @Test
    void idempotentModeNeedsAPrimaryKey() {
        Schema noKey = Schema.of(Field.of("a", DataType.STRING));
        assertThatThrownBy(() -> builder().rows(noKey, Map.of()).buildIdempotent())
                .isInstanceOf(OptionException.class)
                .hasMessageStartingWith("mode idempotent upserts rows by their primary key, and the input has none");
    }

    @Test
    void writeAheadRowsSurviveTheirCheckpointBytesAndAreWrittenWithTheirMarker() throws Exception {
        JdbcWriteAheadSink<Row> sink = builder().committerTable(table + " markers").rows(TypedRows.SCHEMA, Map.of())
                .buildWriteAhead();
        List<Row> restored = new ArrayList<>();
        for (Row row : TypedRows.rows(true)) {
            byte[] bytes = sink.recordSerializer().serialize(row);
            restored.add(sink.recordSerializer().deserialize(sink.recordSerializer().version(), bytes));
        }
        try (CheckpointCommitter committer = sink.createCommitter(context());
                WriteAheadWriter<Row> writer = sink.createWriter(context())) {
            committer.open();
            assertThat(writer.sendValues(restored, 0, 1, 0L)).isTrue();
            assertThat(committer.isCheckpointCommitted(0, 1)).isTrue();
        }

        List<Row> read = readBack();
        List<Row> rows = TypedRows.rows(true);
        assertThat(read).hasSameSizeAs(rows);
        for (int i = 0; i < rows.size(); i++) {
            assertThat(TypedRows.difference(rows.get(i), read.get(i))).isNull();
        }
    }

    @Test
    void aRowTheDatabaseRefusesIsNamedByItsKeyAndNothingOfItsTransactionIsCommitted() throws Exception {
        execute("CREATE TABLE " + quoted() + " (order_id bigint PRIMARY KEY, amount numeric(12, 2) CHECK (amount >= 0))");
        Schema orders = Schema.of(List.of(Field.of("order_id", DataType.LONG), Field.of("amount",
                DataType.decimal(12, 2))), List.of("order_id"));
        JdbcSink<Row> sink = builder().writeMethod(WriteMethod.INSERT).rows(orders, Map.of()).build();
        try (TransactionalWriter<Row, JdbcTransaction> writer = sink.createWriter(context())) {
            JdbcTransaction open = writer.beginTransaction(1);
            writer.write(open, Row.of(orders, 1L, new BigDecimal("1.00")));
            writer.write(open, Row.of(orders, 2L, new BigDecimal("-1.00")));
            writer.write(open, Row.of(orders, 3L, new BigDecimal("3.00")));

            assertThatThrownBy(() -> writer.preCommit(open))
                    .hasMessageContaining("cannot write record order_id '2' (record 2 of a batch of 3) into table "
                            + table + ": ERROR: new row for relation");
        }
        assertThat(server.query("SELECT count(*) FROM " + quoted())).containsExactly(List.of("0"));
    }

    private JdbcSink.Builder<dev.onceflow.spi.record.Event> builder() {
        return JdbcSink.builder(server.url(), table).user("postgres");
    }

    private SinkContext context() {
        return new SinkContext(job, "sink", 0, 1, 1, OptionalLong.empty(), "attempt");
    }

    private String quoted() {
        return PostgresSyntax.identifier(table);
    }

    private List<Row> readBack() throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (Connection connection = server.connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT * FROM " + quoted() + " ORDER BY id")) {
            while (result.next()) {
                rows.add(TypedRows.read(result, false));
            }
        }
        return rows;
    }

    private void execute(String sql) throws SQLException {
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
