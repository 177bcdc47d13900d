package dev.onceflow.spi.source;

/** What a {@link SourceReader} can learn about and ask of the runtime. Use on the task thread only. */
public interface SourceReaderContext {

    /** Index of this parallel reader, {@code 0 <= subtaskIndex < parallelism}. */
    int subtaskIndex();

    /** Number of parallel readers of this source. */
    int parallelism();

    /**
     * Asks the enumerator for more splits: it receives
     * {@link SplitEnumerator#handleSplitRequest(int)} on the coordinator thread and may answer
     * with {@code assignSplits} or {@code signalNoMoreSplits}, or not at all.
     */
    void sendSplitRequest();
}
