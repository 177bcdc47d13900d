package dev.onceflow.connector.datagen;

import java.util.List;

/**
 * What the datagen enumerator checkpoints: the splits it has not assigned yet. Splits already
 * assigned are checkpointed by their readers, so each split is in exactly one snapshot.
 *
 * @param unassigned splits still to hand out, in index order
 */
public record DatagenEnumeratorState(List<DatagenSplit> unassigned) {

    public DatagenEnumeratorState {
        unassigned = List.copyOf(unassigned);
    }
}
