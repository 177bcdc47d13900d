package dev.onceflow.connector.postgrescdc;

import dev.onceflow.spi.source.SourceSplit;

/**
 * The one split of a {@code postgres-cdc} source: the captured table's change stream, read by one
 * reader. Its position is the Debezium offset of the last change emitted, as the JSON Debezium's
 * offset store holds (such as {@code {"lsn_proc":..,"lsn_commit":..,"txId":..}}); Onceflow's
 * checkpoint is the only place it is kept.
 *
 * @param offset the offset JSON, or {@code null} before the first change (the engine then starts
 *     as {@code snapshot} says)
 */
record ChangeSplit(String offset) implements SourceSplit {

    static final String ID = "changes";

    @Override
    public String splitId() {
        return ID;
    }
}
