package dev.onceflow.connector.jdbc;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Which table columns an {@link dev.onceflow.spi.record.Event}'s fields go to, and the SQL built
 * from them. Every name is used as one quoted identifier.
 *
 * @param id column of {@code Event#id()}, the primary key
 * @param key column of {@code Event#key()}
 * @param count column of {@code Event#count()}
 * @param payload column of {@code Event#payload()}
 */
public record Columns(String id, String key, String count, String payload) {

    /** PostgreSQL truncates longer identifiers (NAMEDATALEN - 1 bytes). */
    static final int MAX_IDENTIFIER_BYTES = 63;

    /** The default mapping: {@code id}, {@code key}, {@code count}, {@code payload}. */
    public static final Columns DEFAULT = new Columns("id", "key", "count", "payload");

    public Columns {
        for (String name : List.of(Objects.requireNonNull(id, "id"), Objects.requireNonNull(key, "key"),
                Objects.requireNonNull(count, "count"), Objects.requireNonNull(payload, "payload"))) {
            if (!isValidIdentifier(name)) {
                throw new IllegalArgumentException("column name '" + name + "' must be 1 to " + MAX_IDENTIFIER_BYTES
                        + " bytes without NUL characters");
            }
        }
        Set<String> distinct = new HashSet<>(List.of(id, key, count, payload));
        if (distinct.size() != 4) {
            throw new IllegalArgumentException("column names must differ, got id=" + id + ", key=" + key
                    + ", count=" + count + ", payload=" + payload);
        }
    }

    /** Whether {@code name} can be a PostgreSQL identifier once quoted. */
    static boolean isValidIdentifier(String name) {
        return !name.isEmpty() && name.indexOf('\0') < 0
                && name.getBytes(StandardCharsets.UTF_8).length <= MAX_IDENTIFIER_BYTES;
    }
}
