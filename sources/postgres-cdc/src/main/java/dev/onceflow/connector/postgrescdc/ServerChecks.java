package dev.onceflow.connector.postgrescdc;

import dev.onceflow.spi.factory.OptionException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What a {@code postgres-cdc} source needs of the server, checked when the job is checked, so a
 * job that could not read changes is refused in one line before it runs, never left retrying:
 * logical decoding, the user's privileges, and a replication slot no other reader holds.
 */
final class ServerChecks {

    private ServerChecks() {
    }

    /**
     * @throws OptionException naming what to change on the server, if a check fails
     * @throws SQLException if the server cannot be asked
     */
    static void check(Connection connection, CapturedTable table, String slot, String publication, String owner)
            throws SQLException {
        String walLevel = single(connection, "SHOW wal_level");
        if (!"logical".equals(walLevel)) {
            throw new OptionException(owner + ": the server's wal_level is '" + walLevel + "', and change data "
                    + "capture needs logical decoding; set wal_level = logical in postgresql.conf and restart the server");
        }
        String user = single(connection, "SELECT current_user");
        boolean superuser = "true".equals(single(connection, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"));
        if (!superuser && !"true".equals(single(connection,
                "SELECT rolreplication FROM pg_roles WHERE rolname = current_user"))) {
            throw new OptionException(owner + ": user '" + user + "' may not use replication; run ALTER ROLE \""
                    + user + "\" WITH REPLICATION");
        }
        String quotedTable = quote(table.schemaName()) + "." + quote(table.tableName());
        try (PreparedStatement select = connection.prepareStatement("SELECT has_table_privilege(?, 'SELECT')")) {
            select.setString(1, quotedTable);
            if (!isTrue(select)) {
                throw new OptionException(owner + ": user '" + user + "' may not read table '" + table.qualifiedName()
                        + "'; run GRANT SELECT ON " + quotedTable + " TO \"" + user + "\"");
            }
        }
        try (PreparedStatement exists = connection.prepareStatement(
                "SELECT count(*) > 0 FROM pg_publication WHERE pubname = ?")) {
            exists.setString(1, publication);
            if (!isTrue(exists) && !superuser) {
                // The source creates a missing publication for its table, which takes the table's ownership.
                try (PreparedStatement owns = connection.prepareStatement(
                        "SELECT pg_has_role(c.relowner, 'USAGE') FROM pg_class c WHERE c.oid = ?::regclass")) {
                    owns.setString(1, quotedTable);
                    if (!isTrue(owns)) {
                        throw new OptionException(owner + ": publication '" + publication + "' does not exist and user '"
                                + user + "' does not own table '" + table.qualifiedName() + "' to create it; run "
                                + "CREATE PUBLICATION \"" + publication + "\" FOR TABLE " + quotedTable
                                + " as its owner");
                    }
                }
            }
        }
        try (PreparedStatement slots = connection.prepareStatement(
                "SELECT plugin, database, active, active_pid FROM pg_replication_slots WHERE slot_name = ?")) {
            slots.setString(1, slot);
            try (ResultSet found = slots.executeQuery()) {
                if (found.next()) {
                    if (!"pgoutput".equals(found.getString(1)) || !connection.getCatalog().equals(found.getString(2))) {
                        throw new OptionException(owner + ": replication slot '" + slot + "' exists for plugin '"
                                + found.getString(1) + "' on database '" + found.getString(2) + "'; this source needs "
                                + "one of 'pgoutput' on '" + connection.getCatalog() + "': set another 'slot'");
                    }
                    if (found.getBoolean(3)) {
                        throw new OptionException(owner + ": replication slot '" + slot + "' is in use by another "
                                + "reader (server process " + found.getInt(4) + "), such as another job; a slot has one "
                                + "reader: stop it, or set another 'slot'");
                    }
                }
            }
        }
    }

    private static boolean isTrue(PreparedStatement statement) throws SQLException {
        try (ResultSet result = statement.executeQuery()) {
            return result.next() && result.getBoolean(1);
        }
    }

    private static String single(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
            if (!result.next()) {
                return null;
            }
            String value = result.getString(1);
            return "t".equals(value) ? "true" : "f".equals(value) ? "false" : value;
        }
    }

    /** An SQL identifier, quoted. */
    static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }
}
