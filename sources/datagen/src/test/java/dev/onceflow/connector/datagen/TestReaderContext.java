package dev.onceflow.connector.datagen;

import dev.onceflow.spi.source.SourceReaderContext;

/** The reader's view of the runtime: counts the split requests for the test to pass on. */
final class TestReaderContext implements SourceReaderContext {

    private final int subtaskIndex;
    private final int parallelism;
    private int pendingRequests;

    TestReaderContext(int subtaskIndex, int parallelism) {
        this.subtaskIndex = subtaskIndex;
        this.parallelism = parallelism;
    }

    @Override
    public int subtaskIndex() {
        return subtaskIndex;
    }

    @Override
    public int parallelism() {
        return parallelism;
    }

    @Override
    public void sendSplitRequest() {
        pendingRequests++;
    }

    /** The requests sent since the last call, which the runtime would pass to the enumerator. */
    int takeRequests() {
        int requests = pendingRequests;
        pendingRequests = 0;
        return requests;
    }
}
