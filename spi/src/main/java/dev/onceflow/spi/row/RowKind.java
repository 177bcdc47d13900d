package dev.onceflow.spi.row;

/**
 * What a {@link Row} says about the row of its primary key in the table a stream describes: the
 * same four kinds a changelog carries in Flink, Debezium or a database's log. A stream of only
 * {@link #INSERT}s is an append-only stream, which is what every source made before changelogs
 * produces; a stream with other kinds is a changelog, and its schema has a primary key (CHG-1).
 *
 * <p>The byte values are what {@link RowSerializer} writes into checkpoints; they never change
 * (SER-2). A changelog format sets the kind of each decoded row with {@link Row#withKind}.
 */
public enum RowKind {

    /** A new row; for a keyed table, a row whose key was absent before (or is written over). */
    INSERT("+I", (byte) 0),

    /**
     * The previous content of an updated row, sent before its {@link #UPDATE_AFTER}. A sink that
     * writes by primary key may ignore it; an aggregate retracts it (CHG-3, CHG-5).
     */
    UPDATE_BEFORE("-U", (byte) 1),

    /** The new content of an updated row: written over the row of its key. */
    UPDATE_AFTER("+U", (byte) 2),

    /** A removed row: the row of its key is gone. Only the key fields need to be right. */
    DELETE("-D", (byte) 3);

    private final String shortString;
    private final byte value;

    RowKind(String shortString, byte value) {
        this.shortString = shortString;
        this.value = value;
    }

    /** {@code +I}, {@code -U}, {@code +U} or {@code -D}, for logs and test failures. */
    public String shortString() {
        return shortString;
    }

    /** The kind's stable byte in serialized rows. */
    public byte toByteValue() {
        return value;
    }

    /** Whether a row of this kind takes a row out of the table: {@link #UPDATE_BEFORE} and {@link #DELETE}. */
    public boolean isRetraction() {
        return this == UPDATE_BEFORE || this == DELETE;
    }

    /**
     * The kind written as {@code value}.
     *
     * @throws IllegalArgumentException if no kind has that byte
     */
    public static RowKind fromByteValue(byte value) {
        return switch (value) {
            case 0 -> INSERT;
            case 1 -> UPDATE_BEFORE;
            case 2 -> UPDATE_AFTER;
            case 3 -> DELETE;
            default -> throw new IllegalArgumentException("no row kind has the byte " + value);
        };
    }
}
