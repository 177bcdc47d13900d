package dev.onceflow.connector.kafka.sink;

/** How the key fields of a row become the Kafka record's key. */
public enum KeyEncoding {
    /** One scalar key field: its text in UTF-8 (bytes as they are); a null value gives no key. */
    TEXT,
    /** The key fields as a row of their own, encoded in the sink's format (json: an object of them). */
    FORMAT
}
