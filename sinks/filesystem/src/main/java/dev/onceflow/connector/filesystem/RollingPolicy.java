package dev.onceflow.connector.filesystem;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * When the writer closes a part file and starts the next one within a checkpoint. A part file is
 * always closed at the checkpoint barrier (pre-commit), so each file belongs to exactly one
 * checkpoint and is committed whole by one rename; see docs/connectors/filesystem.md for why files
 * do not stay open across checkpoints.
 *
 * @param maxPartBytes close a part file once this many bytes of text were written to it (before compression)
 * @param maxPartAge close a part file once it has been open this long (checked when writing)
 */
record RollingPolicy(OptionalLong maxPartBytes, Optional<Duration> maxPartAge) {

    /** Only at checkpoints. */
    static final RollingPolicy PER_CHECKPOINT = new RollingPolicy(OptionalLong.empty(), Optional.empty());

    /** Whether any part file may be closed before its checkpoint's barrier. */
    boolean rollsWithinCheckpoint() {
        return maxPartBytes.isPresent() || maxPartAge.isPresent();
    }

    /** Whether to close {@code stream} before writing more into it. */
    boolean shouldRoll(PartFileStream stream) {
        if (maxPartBytes.isPresent() && stream.bytesWritten() >= maxPartBytes.getAsLong()) {
            return true;
        }
        return maxPartAge.isPresent() && System.nanoTime() - stream.openedAtNanos() >= maxPartAge.get().toNanos();
    }
}
