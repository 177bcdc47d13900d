package dev.onceflow.spi.format;

/**
 * A record's bytes are not a record of the schema: they do not parse, a required field is missing
 * or null, or a value does not fit its field's type. Rule FMT-2.
 *
 * <p>The message is one line naming the field (where there is one) and what is wrong, never the
 * whole record: records can be large and can hold what should not be logged. The connector that
 * called the decoder adds the record's position (topic, partition and offset; file and line) when
 * it fails the job or sends the record to a dead-letter place.
 */
public class MalformedRecordException extends Exception {

    private static final long serialVersionUID = 1L;

    public MalformedRecordException(String message) {
        super(message);
    }

    public MalformedRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
