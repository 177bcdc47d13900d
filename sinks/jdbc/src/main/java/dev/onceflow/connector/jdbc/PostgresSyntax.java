package dev.onceflow.connector.jdbc;

/**
 * Quoting for the SQL this sink builds from text it does not control (table names from job files,
 * gids from job names): statements such as {@code PREPARE TRANSACTION} take no bind parameters.
 */
final class PostgresSyntax {

    /** SQLSTATE of COMMIT/ROLLBACK PREPARED with an unknown gid (undefined_object). */
    static final String UNKNOWN_GID = "42704";
    /** SQLSTATE of PREPARE TRANSACTION with a gid already in use (duplicate_object). */
    static final String DUPLICATE_GID = "42710";

    private PostgresSyntax() {
    }

    /** A quoted identifier: {@code my"table} becomes {@code "my""table"}, so any name is one identifier. */
    static String identifier(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /** A standard string literal ({@code standard_conforming_strings} is on since PostgreSQL 9.1). */
    static String literal(String text) {
        return '\'' + text.replace("'", "''") + '\'';
    }

    /** A LIKE pattern matching every text that starts with {@code prefix}, for {@code ESCAPE '\'}. */
    static String startsWithPattern(String prefix) {
        return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
    }
}
