package dev.onceflow.connector.kafka;

/** Which of the rows' fields a Kafka record's value holds, when its key holds some of them. */
public enum ValueFieldsInclude {
    /** Every field, the key's too: a key field must have the same value in the key and the value. */
    ALL,
    /** Only the fields that are not the key's. */
    EXCEPT_KEY
}
