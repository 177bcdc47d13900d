package dev.onceflow.runtime.execution;

import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import java.nio.file.Path;

/** Where a job starts from. */
public sealed interface RestoreSetting {

    /** From nothing: sources from their beginning, empty state. */
    record Fresh() implements RestoreSetting {
    }

    /**
     * From the newest completed checkpoint or savepoint of this job, or fresh if there is none.
     * Refused if that one cannot be read: an older one would write its committed output again
     * (EO-5). Directories that never completed are skipped.
     */
    record Latest() implements RestoreSetting {
    }

    /**
     * From the given checkpoint or savepoint directory; fails if it is not valid. Refused if the
     * job completed a newer checkpoint or savepoint, whose output sinks may have committed, unless
     * {@code acceptDuplicates} (EO-5).
     */
    record FromPath(CheckpointLocation directory, boolean acceptDuplicates) implements RestoreSetting {

        public FromPath(CheckpointLocation directory) {
            this(directory, false);
        }

        /**
         * The same directory, restored even though newer checkpoints of the job completed: what
         * sinks committed after it is written again.
         */
        public FromPath acceptingDuplicates() {
            return new FromPath(directory, true);
        }
    }

    static RestoreSetting fresh() {
        return new Fresh();
    }

    static RestoreSetting latest() {
        return new Latest();
    }

    static FromPath fromPath(CheckpointLocation directory) {
        return new FromPath(directory);
    }

    static FromPath fromPath(Path directory) {
        return new FromPath(CheckpointLocation.of(directory));
    }
}
