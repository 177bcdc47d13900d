package dev.onceflow.runtime.checkpoint;

import java.util.ArrayDeque;
import java.util.List;

/**
 * The statistics of a job's most recent checkpoints and savepoints, completed or failed, across all
 * its attempts, oldest first. Bounded, so a job that runs for months keeps a fixed amount. The
 * coordinator thread of each attempt adds; the status endpoint and the CLI read from any thread.
 */
public final class CheckpointHistory {

    /** How many entries are kept. */
    public static final int CAPACITY = 100;

    private final ArrayDeque<CheckpointStats> entries = new ArrayDeque<>(CAPACITY);

    public synchronized void add(CheckpointStats stats) {
        if (entries.size() == CAPACITY) {
            entries.removeFirst();
        }
        entries.addLast(stats);
    }

    /** A copy of the entries, oldest first. */
    public synchronized List<CheckpointStats> entries() {
        return List.copyOf(entries);
    }

    /** The most recent entry, or {@code null} if no checkpoint finished yet. */
    public synchronized CheckpointStats latest() {
        return entries.peekLast();
    }
}
