package dev.onceflow.runtime.config;

/** How tasks with several input channels treat barriers. */
public enum CheckpointingMode {
    /**
     * Align: hold each channel whose barrier arrived until every channel's barrier has arrived,
     * so the snapshot reflects exactly the records before the barrier on every channel.
     */
    EXACTLY_ONCE,
    /**
     * Do not align: keep processing channels whose barrier arrived. Lower latency under skew, but
     * state may include records after the barrier, which are replayed after a restore: duplicates.
     */
    AT_LEAST_ONCE
}
