package dev.onceflow.flink;

import dev.onceflow.spi.source.SourceSplit;

/** An Onceflow split as a Flink split: Flink's split interface is another type with the same one method. */
record BridgedSplit<S extends SourceSplit>(S split) implements org.apache.flink.api.connector.source.SourceSplit {

    @Override
    public String splitId() {
        return split.splitId();
    }
}
