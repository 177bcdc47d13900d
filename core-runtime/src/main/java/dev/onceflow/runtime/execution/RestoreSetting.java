package dev.onceflow.runtime.execution;

import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import java.nio.file.Path;

/** Where a job starts from. */
public sealed interface RestoreSetting {

    /** From nothing: sources from their beginning, empty state. */
    record Fresh() implements RestoreSetting {
    }

    /** From the newest valid checkpoint or savepoint of this job, or fresh if there is none. */
    record Latest() implements RestoreSetting {
    }

    /** From the given checkpoint or savepoint directory; fails if it is not valid. */
    record FromPath(CheckpointLocation directory) implements RestoreSetting {
    }

    static RestoreSetting fresh() {
        return new Fresh();
    }

    static RestoreSetting latest() {
        return new Latest();
    }

    static RestoreSetting fromPath(CheckpointLocation directory) {
        return new FromPath(directory);
    }

    static RestoreSetting fromPath(Path directory) {
        return new FromPath(CheckpointLocation.of(directory));
    }
}
