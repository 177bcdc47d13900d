package dev.onceflow.runtime.checkpoint;

import java.io.IOException;

/** A checkpoint file failed validation. The checkpoint is skipped, never restored. */
public class CorruptCheckpointException extends IOException {

    private static final long serialVersionUID = 1L;

    public CorruptCheckpointException(String message) {
        super(message);
    }

    public CorruptCheckpointException(String message, Throwable cause) {
        super(message, cause);
    }
}
