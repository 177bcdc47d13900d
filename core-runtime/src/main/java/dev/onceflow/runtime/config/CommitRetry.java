package dev.onceflow.runtime.config;

import java.time.Duration;

/**
 * How often a sink commit is retried before the job fails. The handle is never dropped: after the
 * failure the job restores the checkpoint that holds it and commits it again.
 */
public record CommitRetry(int attempts, Duration initialBackoff, Duration maxBackoff) {

    public static final CommitRetry DEFAULT = new CommitRetry(5, Duration.ofMillis(100), Duration.ofSeconds(5));

    public CommitRetry {
        if (attempts < 1) {
            throw new IllegalArgumentException("commit attempts must be >= 1");
        }
    }

    /**
     * Runs {@code action} until it succeeds or the attempts are used up, doubling the backoff each
     * time; then rethrows the last failure. Blocks the calling (task) thread while backing off.
     */
    public void run(String what, Action action) throws Exception {
        long backoff = initialBackoff.toMillis();
        for (int attempt = 1; ; attempt++) {
            try {
                action.run();
                return;
            } catch (Exception e) {
                if (attempt >= attempts) {
                    throw new Exception(what + " failed after " + attempts + " attempts: " + e.getMessage(), e);
                }
                LOG.warn("{} failed (attempt {} of {}), retrying in {} ms: {}", what, attempt, attempts, backoff,
                        e.toString());
                Thread.sleep(backoff);
                backoff = Math.min(backoff * 2, maxBackoff.toMillis());
            }
        }
    }

    /** A commit step. */
    @FunctionalInterface
    public interface Action {
        void run() throws Exception;
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CommitRetry.class);
}
