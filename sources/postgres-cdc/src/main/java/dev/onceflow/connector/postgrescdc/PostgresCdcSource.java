package dev.onceflow.connector.postgrescdc;

import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.source.Boundedness;
import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.util.Objects;

/**
 * The changes of one PostgreSQL table as a changelog of rows: a snapshot of its rows (as inserts),
 * then every insert, update and delete committed after it, read from a logical replication slot
 * through Debezium's embedded engine. One split, read by reader 0; its position is the Debezium
 * offset of the last change emitted, kept in Onceflow's checkpoints only.
 *
 * <p>Immutable; holds settings only (the password is never part of {@link #toString()}).
 */
public final class PostgresCdcSource implements ReplayableSource<Row, ChangeSplit, Boolean> {

    /** Where a first start begins. */
    public enum Snapshot {
        /** The table's rows as inserts, then its changes. */
        INITIAL,
        /** Only changes committed after the slot was created. */
        NEVER
    }

    /**
     * @param host the server's host
     * @param port the server's port
     * @param database the database holding the table
     * @param user the replication user
     * @param password its password, or {@code null}
     * @param table the captured table and its rows' schema
     * @param slot the replication slot's name
     * @param publication the publication's name
     * @param snapshot where a first start begins
     */
    record Settings(String host, int port, String database, String user, String password, CapturedTable table,
            String slot, String publication, Snapshot snapshot) {

        Settings {
            Objects.requireNonNull(table, "table");
        }

        @Override
        public String toString() {
            return "postgres-cdc{table=" + table.qualifiedName() + ", server=" + host + ":" + port + "/" + database
                    + ", user=" + user + ", slot=" + slot + ", publication=" + publication + ", snapshot="
                    + snapshot.name().toLowerCase(java.util.Locale.ROOT) + "}";
        }
    }

    private final Settings settings;

    PostgresCdcSource(Settings settings) {
        this.settings = settings;
    }

    Schema schema() {
        return settings.table().schema();
    }

    @Override
    public Boundedness boundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<ChangeSplit, Boolean> createEnumerator(SplitEnumeratorContext<ChangeSplit> context) {
        return new ChangeEnumerator(context, false);
    }

    @Override
    public SplitEnumerator<ChangeSplit, Boolean> restoreEnumerator(SplitEnumeratorContext<ChangeSplit> context,
            Boolean assigned) {
        return new ChangeEnumerator(context, assigned);
    }

    @Override
    public SourceReader<Row, ChangeSplit> createReader(SourceReaderContext context) {
        return new ChangeReader(settings);
    }

    @Override
    public SimpleVersionedSerializer<ChangeSplit> splitSerializer() {
        return ChangeSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<Boolean> enumeratorStateSerializer() {
        return ChangeEnumerator.STATE_SERIALIZER;
    }

    @Override
    public String toString() {
        return settings.toString();
    }
}
