package dev.onceflow.connector.elasticsearch;

import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.util.function.Function;

/**
 * What the sink receives and how each record becomes the row that is its document: rows of a job
 * file as they are, or events (for Java programs and the Flink bridge) as rows of
 * {@link dev.onceflow.spi.record.EventRows#SCHEMA}. Immutable; the sink's writers share it.
 *
 * @param fields the fields of the rows that make ids, versions and index names
 * @param toRow the record's row; called on the writer's thread
 * @param serializer how the write-ahead mode keeps records in the checkpoint
 * @param <T> the sink's records
 */
record InputRecords<T>(DocumentFields fields, Function<T, Row> toRow, SimpleVersionedSerializer<T> serializer) {
}
