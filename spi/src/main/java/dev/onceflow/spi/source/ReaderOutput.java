package dev.onceflow.spi.source;

/** Where a {@link SourceReader} emits records. Valid only during the call to {@code pollNext}. */
public interface ReaderOutput<T> {

    /** Emits one record downstream. Never blocks the reader for long: channels are batched. */
    void collect(T record);
}
