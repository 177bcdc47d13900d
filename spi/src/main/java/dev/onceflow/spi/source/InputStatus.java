package dev.onceflow.spi.source;

/** What {@link SourceReader#pollNext} tells the runtime about the records behind the ones it emitted. */
public enum InputStatus {
    /** Call {@code pollNext} again at once. */
    MORE_AVAILABLE,
    /** Nothing to read now; the runtime waits briefly (processing its mailbox) and polls again. */
    NOTHING_AVAILABLE,
    /**
     * Every assigned split is read and the enumerator signalled no more splits. The runtime stops
     * polling but keeps the reader open for the final checkpoint and its notification.
     */
    END_OF_INPUT
}
