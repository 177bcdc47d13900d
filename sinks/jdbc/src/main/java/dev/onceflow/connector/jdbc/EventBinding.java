package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.record.Event;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/** Events into the four columns {@link Columns} names, keyed by the id column. */
record EventBinding(Columns names) implements RecordBinding<Event> {

    @Override
    public List<String> columns() {
        return List.of(names.id(), names.key(), names.count(), names.payload());
    }

    @Override
    public List<String> keyColumns() {
        return List.of(names.id());
    }

    @Override
    public void bindKey(PreparedStatement statement, Event record) throws SQLException {
        statement.setString(1, record.id());
    }

    @Override
    public void bind(PreparedStatement statement, Event record) throws SQLException {
        statement.setString(1, record.id());
        statement.setString(2, record.key());
        statement.setLong(3, record.count());
        statement.setString(4, record.payload());
    }

    @Override
    public void appendCopy(StringBuilder out, Event record) {
        RecordBinding.appendCopyText(out, record.id()).append('\t');
        RecordBinding.appendCopyText(out, record.key()).append('\t');
        out.append(record.count()).append('\t');
        RecordBinding.appendCopyText(out, record.payload()).append('\n');
    }

    @Override
    public List<Comparable<?>> key(Event record) {
        return List.of(record.id());
    }

    @Override
    public String describe(Event record) {
        return "record id '" + record.id() + "'";
    }

    @Override
    public String createTable(SqlDialect dialect, String table) {
        return dialect.createTable(table, names);
    }

    @Override
    public String toString() {
        return "columns=" + names;
    }
}
