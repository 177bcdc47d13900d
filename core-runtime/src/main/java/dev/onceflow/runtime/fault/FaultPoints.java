package dev.onceflow.runtime.fault;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Named places in the runtime where a test can kill the JVM at exactly one step of the commit
 * protocol. Armed with the system property {@code onceflow.fault} or the environment variable
 * {@code ONCEFLOW_FAULT}, as {@code <name>} or {@code <name>@<n>} (halt at the n-th time the point
 * is reached; default 1). {@link Runtime#halt} skips shutdown hooks and finally blocks, so the
 * process dies as under SIGKILL.
 *
 * <p>Disarmed, {@link #reach} tests one {@code static final} boolean that the JIT folds away.
 */
public final class FaultPoints {

    /** Exit status of a JVM halted at a fault point, so tests can tell it from other deaths. */
    public static final int HALT_EXIT_CODE = 86;

    public static final String SOURCE_BEFORE_BARRIER = "source.before-barrier";
    public static final String TASK_AFTER_SNAPSHOT_BEFORE_ACK = "task.after-snapshot-before-ack";
    public static final String COORDINATOR_BEFORE_METADATA = "coordinator.before-metadata";
    public static final String COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY = "coordinator.after-complete-before-notify";
    public static final String SINK_BEFORE_PRECOMMIT = "sink.before-precommit";
    public static final String SINK_AFTER_PRECOMMIT = "sink.after-precommit";
    public static final String SINK_BEFORE_COMMIT = "sink.before-commit";
    public static final String SINK_MID_COMMIT = "sink.mid-commit";
    public static final String SINK_DURING_RECOVERY = "sink.during-recovery";
    public static final String SINK_WAL_AFTER_SEND = "sink.wal-after-send";

    /** Every point, in protocol order. */
    public static final java.util.List<String> ALL = java.util.List.of(
            SOURCE_BEFORE_BARRIER, SINK_BEFORE_PRECOMMIT, SINK_AFTER_PRECOMMIT, TASK_AFTER_SNAPSHOT_BEFORE_ACK,
            COORDINATOR_BEFORE_METADATA, COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY, SINK_BEFORE_COMMIT,
            SINK_MID_COMMIT, SINK_DURING_RECOVERY, SINK_WAL_AFTER_SEND);

    private static final String SPEC = readSpec();
    private static final boolean ARMED = SPEC != null;
    private static final String ARMED_NAME;
    private static final int ARMED_OCCURRENCE;
    private static final AtomicInteger HITS = new AtomicInteger();

    static {
        if (ARMED) {
            int at = SPEC.indexOf('@');
            ARMED_NAME = at < 0 ? SPEC : SPEC.substring(0, at);
            ARMED_OCCURRENCE = at < 0 ? 1 : Integer.parseInt(SPEC.substring(at + 1));
            if (!ALL.contains(ARMED_NAME)) {
                throw new IllegalArgumentException("unknown fault point '" + ARMED_NAME + "'; known: " + ALL);
            }
        } else {
            ARMED_NAME = null;
            ARMED_OCCURRENCE = 0;
        }
    }

    private FaultPoints() {
    }

    /** Halts the JVM if {@code point} is the armed point and this is its armed occurrence. */
    public static void reach(String point) {
        if (ARMED && point.equals(ARMED_NAME) && HITS.incrementAndGet() == ARMED_OCCURRENCE) {
            System.err.println("onceflow: fault point " + point + " reached, halting the JVM");
            System.err.flush();
            Runtime.getRuntime().halt(HALT_EXIT_CODE);
        }
    }

    private static String readSpec() {
        String spec = System.getProperty("onceflow.fault");
        if (spec == null || spec.isBlank()) {
            spec = System.getenv("ONCEFLOW_FAULT");
        }
        return spec == null || spec.isBlank() ? null : spec.trim().toLowerCase(Locale.ROOT);
    }
}
