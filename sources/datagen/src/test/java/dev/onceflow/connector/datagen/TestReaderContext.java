package dev.onceflow.connector.datagen;

import dev.onceflow.spi.source.SourceReaderContext;

/** The reader's view of the runtime; datagen readers never ask for splits. */
record TestReaderContext(int subtaskIndex, int parallelism) implements SourceReaderContext {

    @Override
    public void sendSplitRequest() {
        throw new AssertionError("datagen readers get all their splits in addReader and never ask");
    }
}
