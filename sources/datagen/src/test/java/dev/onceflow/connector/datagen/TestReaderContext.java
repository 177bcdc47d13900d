package dev.onceflow.connector.datagen;

import dev.onceflow.spi.source.SourceReaderContext;
import java.util.concurrent.atomic.AtomicInteger;

/** The reader's view of the runtime: counts the split requests for the test to pass on. */
record TestReaderContext(int subtaskIndex, int parallelism, AtomicInteger pendingRequests)
        implements SourceReaderContext {

    TestReaderContext(int subtaskIndex, int parallelism) {
        this(subtaskIndex, parallelism, new AtomicInteger());
    }

    @Override
    public void sendSplitRequest() {
        pendingRequests.incrementAndGet();
    }

    /** The requests sent since the last call, which the runtime would pass to the enumerator. */
    int takeRequests() {
        return pendingRequests.getAndSet(0);
    }
}
