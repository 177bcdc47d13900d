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
 * <p>A point can instead be armed to <em>stall</em> with {@code onceflow.fault.delay} (or
 * {@code ONCEFLOW_FAULT_DELAY}) as {@code <name>@<n>=<millis>}: the n-th time it is reached, the
 * calling thread sleeps that long. Tests use it to make one checkpoint time out.
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
    /**
     * A write-ahead sink takes the first record of a segment to send: a sink that marks the segment
     * committed before it sends it has the mark and not the data when the process dies here.
     */
    public static final String SINK_WAL_MID_SEND = "sink.wal-mid-send";
    public static final String SINK_WAL_AFTER_SEND = "sink.wal-after-send";

    /** Every point, in protocol order. */
    public static final java.util.List<String> ALL = java.util.List.of(
            SOURCE_BEFORE_BARRIER, SINK_BEFORE_PRECOMMIT, SINK_AFTER_PRECOMMIT, TASK_AFTER_SNAPSHOT_BEFORE_ACK,
            COORDINATOR_BEFORE_METADATA, COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY, SINK_BEFORE_COMMIT,
            SINK_MID_COMMIT, SINK_DURING_RECOVERY, SINK_WAL_MID_SEND, SINK_WAL_AFTER_SEND);

    /** The write-ahead points, which only a write-ahead sink reaches. */
    public static final java.util.List<String> WRITE_AHEAD = java.util.List.of(SINK_WAL_MID_SEND, SINK_WAL_AFTER_SEND);

    private static final String SPEC = readSpec("onceflow.fault", "ONCEFLOW_FAULT");
    private static final String DELAY_SPEC = readSpec("onceflow.fault.delay", "ONCEFLOW_FAULT_DELAY");
    private static final boolean ARMED = SPEC != null || DELAY_SPEC != null;
    private static final boolean STALL_ARMED = DELAY_SPEC != null;
    private static final String ARMED_NAME;
    private static final int ARMED_OCCURRENCE;
    private static final AtomicInteger HITS = new AtomicInteger();

    private static final String DELAY_NAME;
    private static final int DELAY_OCCURRENCE;
    private static final long DELAY_MILLIS;
    private static final AtomicInteger DELAY_HITS = new AtomicInteger();

    static {
        if (SPEC != null) {
            int at = SPEC.indexOf('@');
            ARMED_NAME = checkName(at < 0 ? SPEC : SPEC.substring(0, at));
            ARMED_OCCURRENCE = at < 0 ? 1 : Integer.parseInt(SPEC.substring(at + 1));
        } else {
            ARMED_NAME = null;
            ARMED_OCCURRENCE = 0;
        }
        if (DELAY_SPEC != null) {
            int at = DELAY_SPEC.indexOf('@');
            int eq = DELAY_SPEC.indexOf('=');
            if (at < 0 || eq < at) {
                throw new IllegalArgumentException("fault delay '" + DELAY_SPEC + "' is not <name>@<n>=<millis>");
            }
            DELAY_NAME = checkName(DELAY_SPEC.substring(0, at));
            DELAY_OCCURRENCE = Integer.parseInt(DELAY_SPEC.substring(at + 1, eq));
            DELAY_MILLIS = Long.parseLong(DELAY_SPEC.substring(eq + 1));
        } else {
            DELAY_NAME = null;
            DELAY_OCCURRENCE = 0;
            DELAY_MILLIS = 0;
        }
    }

    private static String checkName(String name) {
        if (!ALL.contains(name)) {
            throw new IllegalArgumentException("unknown fault point '" + name + "'; known: " + ALL);
        }
        return name;
    }

    private FaultPoints() {
    }

    /**
     * Whether a stall is armed. A stall skews the barriers of a checkpoint, and the runtime then
     * {@linkplain #report reports} what the skew did, so that a test can tell a case that exercised
     * barrier alignment from one whose stall happened to hold nothing back.
     */
    public static boolean stallArmed() {
        return STALL_ARMED;
    }

    /** Writes {@code line} to standard error for the test that armed a stall; nothing otherwise. */
    public static void report(String line) {
        if (STALL_ARMED) {
            System.err.println("onceflow: " + line);
        }
    }

    /**
     * The records of a write-ahead segment as handed to the sink: the first one the sink takes
     * reaches {@link #SINK_WAL_MID_SEND}. Disarmed, {@code values} itself.
     */
    public static <T> Iterable<T> sending(Iterable<T> values) {
        if (!ARMED) {
            return values;
        }
        return () -> {
            java.util.Iterator<T> it = values.iterator();
            return new java.util.Iterator<T>() {
                private boolean taken;

                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public T next() {
                    if (!taken) {
                        taken = true;
                        reach(SINK_WAL_MID_SEND);
                    }
                    return it.next();
                }
            };
        };
    }

    /** Halts the JVM if {@code point} is the armed point and this is its armed occurrence. */
    public static void reach(String point) {
        if (ARMED) {
            armed(point);
        }
    }

    private static void armed(String point) {
        if (point.equals(DELAY_NAME) && DELAY_HITS.incrementAndGet() == DELAY_OCCURRENCE) {
            System.err.println("onceflow: fault point " + point + " reached, stalling " + DELAY_MILLIS + " ms");
            try {
                Thread.sleep(DELAY_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (point.equals(ARMED_NAME) && HITS.incrementAndGet() == ARMED_OCCURRENCE) {
            System.err.println("onceflow: fault point " + point + " reached, halting the JVM");
            System.err.flush();
            Runtime.getRuntime().halt(HALT_EXIT_CODE);
        }
    }

    private static String readSpec(String property, String variable) {
        String spec = System.getProperty(property);
        if (spec == null || spec.isBlank()) {
            spec = System.getenv(variable);
        }
        return spec == null || spec.isBlank() ? null : spec.trim().toLowerCase(Locale.ROOT);
    }
}
