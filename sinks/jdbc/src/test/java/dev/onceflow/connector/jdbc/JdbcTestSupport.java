package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/** What the JDBC sink's tests on both databases do alike: read rows back, drive a writer to pre-commit. */
final class JdbcTestSupport {

    private JdbcTestSupport() {
    }

    /** Every row of {@code sql} as text, columns in order; closes the connection. */
    static List<List<String>> query(Connection connection, String sql) throws SQLException {
        try (connection; Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            List<List<String>> rows = new ArrayList<>();
            int columns = result.getMetaData().getColumnCount();
            while (result.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= columns; i++) {
                    row.add(result.getString(i));
                }
                rows.add(row);
            }
            return rows;
        }
    }

    /** Begins checkpoint {@code checkpointId}'s transaction, writes {@code events} and pre-commits it. */
    static JdbcTransaction writeAndPreCommit(TransactionalWriter<Event, JdbcTransaction> writer, long checkpointId,
            List<Event> events) throws Exception {
        JdbcTransaction open = writer.beginTransaction(checkpointId);
        for (Event event : events) {
            writer.write(open, event);
        }
        return writer.preCommit(open);
    }

    /** Creates a writer of the sink under test for a context. */
    @FunctionalInterface
    interface Writers {
        TransactionalWriter<Event, JdbcTransaction> create(SinkContext context) throws Exception;
    }

    /** Reads something from the database under test. */
    @FunctionalInterface
    interface Query<T> {
        T run() throws SQLException;
    }

    /**
     * 2PC-9: job {@code <base>orders-eu} with sink {@code db} prepares {@code events} for
     * checkpoint 1; then job {@code <base>orders} with sink {@code eu-db}, whose old-format gids
     * were the same text, starts and cleans up. Commits the first job's transaction, after
     * returning the gids still prepared when the second job had started.
     */
    static List<String> preparedAfterAJobWhoseNamesJoinTheSameStarted(Writers writers, String base,
            List<Event> events, Query<List<String>> preparedGids) throws Exception {
        SinkContext victimContext = new SinkContext(base + "orders-eu", "db", 0, 1, 1, OptionalLong.empty(), "a1");
        SinkContext otherContext = new SinkContext(base + "orders", "eu-db", 0, 1, 1, OptionalLong.empty(), "a2");
        try (TransactionalWriter<Event, JdbcTransaction> victim = writers.create(victimContext)) {
            JdbcTransaction prepared = writeAndPreCommit(victim, 1, events);
            try (TransactionalWriter<Event, JdbcTransaction> other = writers.create(otherContext)) {
                other.abortLingering();
            }
            List<String> stillPrepared = preparedGids.run();
            if (stillPrepared.contains(prepared.gid())) {
                victim.commit(prepared);
            }
            return stillPrepared;
        }
    }
}
