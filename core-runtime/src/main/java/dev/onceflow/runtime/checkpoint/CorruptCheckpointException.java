package dev.onceflow.runtime.checkpoint;

import java.io.IOException;

/**
 * A checkpoint file failed validation. The checkpoint is never restored; a job whose newest
 * completed checkpoint is corrupt is refused rather than restored from an older one (EO-5).
 */
public class CorruptCheckpointException extends IOException {

    private static final long serialVersionUID = 1L;

    public CorruptCheckpointException(String message) {
        super(message);
    }

    public CorruptCheckpointException(String message, Throwable cause) {
        super(message, cause);
    }
}
