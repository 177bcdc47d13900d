package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

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
}
