package dev.onceflow.spi.source;

/** Whether a source ends. A job whose sources are all bounded finishes with a final checkpoint. */
public enum Boundedness {
    /** The source reaches {@link InputStatus#END_OF_INPUT} once its splits are read. */
    BOUNDED,
    /** The source runs until the job is stopped; readers never report end of input. */
    CONTINUOUS_UNBOUNDED
}
