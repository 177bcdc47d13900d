package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.row.RowKind;
import java.nio.ByteBuffer;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;

/**
 * How one kind of record becomes a table row: its columns, its key, its values as statement
 * parameters and as COPY text, and the table made for it. Immutable and thread-safe; the sink's
 * writers share one.
 *
 * @param <T> the records the sink writes: {@link dev.onceflow.spi.record.Event}s or rows
 */
sealed interface RecordBinding<T> permits EventBinding, RowBinding {

    /** The columns written, in the order {@link #bind} and {@link #appendCopy} give their values. */
    List<String> columns();

    /** The columns of the key an upsert replaces rows by; empty when the records have none. */
    List<String> keyColumns();

    /** Sets parameters 1 to {@code columns().size()} of {@code statement} to the record's values. */
    void bind(PreparedStatement statement, T record) throws SQLException;

    /** Sets parameters 1 to {@code keyColumns().size()} of {@code statement} to the record's key values. */
    void bindKey(PreparedStatement statement, T record) throws SQLException;

    /** What the record says about the row of its key (CHG-4); events are always inserts. */
    default RowKind kind(T record) {
        return RowKind.INSERT;
    }

    /** Appends the record as one line of PostgreSQL's COPY text format, with its final line feed. */
    void appendCopy(StringBuilder out, T record);

    /**
     * The record's key values, compared by {@link #KEY_ORDER}: which records an upsert batch
     * collapses, and the order it writes them in.
     */
    List<Comparable<?>> key(T record);

    /** How an error message names the record: its key, never its other values (they may be anyone's data). */
    String describe(T record);

    /** {@code CREATE TABLE IF NOT EXISTS} for these records. */
    String createTable(SqlDialect dialect, String table);

    /** Key values in order, element by element; bytes arrive wrapped in {@link ByteBuffer}s, which compare by content. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    Comparator<List<Comparable<?>>> KEY_ORDER = (a, b) -> {
        for (int i = 0; i < a.size(); i++) {
            int c = ((Comparable) a.get(i)).compareTo(b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    };

    /** COPY's text format: backslash escapes for the delimiter, line ends and the backslash itself. */
    static StringBuilder appendCopyText(StringBuilder out, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> out.append(c);
            }
        }
        return out;
    }
}
