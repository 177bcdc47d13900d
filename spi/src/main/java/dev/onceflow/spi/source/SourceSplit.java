package dev.onceflow.spi.source;

/**
 * A unit of input a reader owns: a Kafka partition, a file, a range of a generated sequence.
 *
 * <p>A split value carries its <em>position</em>: the reader returns splits from
 * {@link SourceReader#snapshotState(long)} with positions just after the last record it emitted
 * before the barrier. A split must therefore be an immutable value (a Java {@code record} is
 * ideal); the reader creates new values as it advances.
 */
public interface SourceSplit {

    /** Identifies the split within its source, stable across restarts (for logs and rescaling). */
    String splitId();
}
