package dev.onceflow.connector.file;

import java.util.List;
import java.util.Set;

/**
 * What the file enumerator checkpoints.
 *
 * @param unassigned discovered files not yet handed to a reader, in discovery order
 * @param discovered every file path ever discovered, assigned or not, so a restored enumerator
 *     never hands out a file a second time (its readers already own it, with its position)
 */
public record FileEnumeratorState(List<FileSplit> unassigned, Set<String> discovered) {

    public FileEnumeratorState {
        unassigned = List.copyOf(unassigned);
        discovered = Set.copyOf(discovered);
    }
}
