package dev.onceflow.runtime.api;

/** Which clock a timer follows. */
public enum TimeDomain {
    /** The watermark: fires when event time passes the timer, whatever the wall clock says. */
    EVENT_TIME,
    /** The machine's wall clock ({@link System#currentTimeMillis()}). */
    PROCESSING_TIME
}
