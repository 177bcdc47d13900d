package dev.onceflow.conformance;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Commit failures that the suite injects into the job's child JVM, around the commit of the sink
 * under test ({@link CommitFailureSinkFactory}), to check rule 2PC-3: a failed commit is retried
 * until the handle is committed, or the job fails; the handle is never dropped.
 *
 * <p>Armed with the system property {@value #PROPERTY} as {@code <sink>:<mode>:<attempts>}, for
 * example {@code filesystem:before:2}: the first {@code attempts} commits of each of the first
 * {@value #FAILING_HANDLES} handles of the JVM throw. Only those handles, so that the backoff of
 * the runtime's retries does not slow the whole run.
 *
 * @param sink the identifier of the sink under test
 * @param attempts how many attempts of a handle fail; ignored for {@link Mode#PERMANENT}
 */
public record CommitFailures(String sink, Mode mode, int attempts) {

    public static final String PROPERTY = "onceflow.conformance.commit-failures";

    /** What the child prints each time it injects a failure: a case whose log lacks it did not reach a commit. */
    public static final String INJECTED = "onceflow conformance: injected commit failure";

    static final int FAILING_HANDLES = 4;

    /** When a failing commit throws. */
    public enum Mode {
        /** Before the commit took effect: a retry must commit the handle. */
        BEFORE,
        /** After the commit took effect: a retry must find it committed and do nothing (2PC-4). */
        AFTER,
        /** Every commit and recoverAndCommit, before it takes effect: the job must fail, never exit 0. */
        PERMANENT
    }

    /** Attempts so far per handle, in this JVM; a handle of a TwoPhaseCommitSink is an immutable value. */
    private static final Map<Object, Integer> ATTEMPTS = new ConcurrentHashMap<>();

    public CommitFailures {
        if (sink.contains(":") || attempts < 1) {
            throw new IllegalArgumentException("commit failures of sink '" + sink + "', " + attempts + " attempts");
        }
    }

    /** The value of {@value #PROPERTY} that arms these failures. */
    public String property() {
        return sink + ":" + mode.name().toLowerCase(Locale.ROOT) + ":" + attempts;
    }

    @Override
    public String toString() {
        return mode == Mode.PERMANENT ? "every commit of " + sink + " fails"
                : "first " + attempts + " commit attempts fail " + mode.name().toLowerCase(Locale.ROOT)
                        + " the commit took effect";
    }

    /** The failures armed in this JVM, if any. */
    public static Optional<CommitFailures> armed() {
        String spec = System.getProperty(PROPERTY);
        if (spec == null || spec.isBlank()) {
            return Optional.empty();
        }
        String[] parts = spec.trim().split(":");
        if (parts.length != 3) {
            throw new IllegalArgumentException(PROPERTY + " '" + spec + "' is not <sink>:<before|after|permanent>:<attempts>");
        }
        return Optional.of(new CommitFailures(parts[0], Mode.valueOf(parts[1].toUpperCase(Locale.ROOT)),
                Integer.parseInt(parts[2])));
    }

    /** A commit step of the sink under test. */
    @FunctionalInterface
    public interface Commit {
        void run() throws Exception;
    }

    /**
     * Runs {@code commit} of {@code handle} with the armed failures: the suite's wrapper calls it
     * around the connector's {@code commit}, and so may a connector of the suite's own tests that
     * models an external system whose commits fail.
     */
    public static void commit(Object handle, Commit commit) throws Exception {
        Optional<CommitFailures> armed = armed();
        if (armed.isEmpty()) {
            commit.run();
            return;
        }
        Mode mode = armed.get().mode();
        boolean fails = mode == Mode.PERMANENT || failsThisAttempt(handle, armed.get().attempts());
        if (fails && mode != Mode.AFTER) {
            throw injected(handle, "before it took effect");
        }
        commit.run();
        if (fails) {
            throw injected(handle, "after it took effect");
        }
    }

    /** Runs {@code recoverAndCommit} of {@code handle}: only a permanent failure fails it, as it fails every commit. */
    public static void recoverAndCommit(Object handle, Commit commit) throws Exception {
        if (armed().map(failures -> failures.mode() == Mode.PERMANENT).orElse(false)) {
            throw injected(handle, "before it took effect (recovery)");
        }
        commit.run();
    }

    private static boolean failsThisAttempt(Object handle, int attempts) {
        synchronized (ATTEMPTS) {
            Integer before = ATTEMPTS.get(handle);
            if (before == null && ATTEMPTS.size() >= FAILING_HANDLES) {
                return false;
            }
            int attempt = before == null ? 1 : before + 1;
            ATTEMPTS.put(handle, attempt);
            return attempt <= attempts;
        }
    }

    private static Exception injected(Object handle, String when) {
        String message = INJECTED + " " + when + " of " + handle;
        System.err.println(message);
        return new java.io.IOException(message);
    }
}
