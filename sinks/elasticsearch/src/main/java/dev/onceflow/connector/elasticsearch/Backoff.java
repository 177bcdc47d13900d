package dev.onceflow.connector.elasticsearch;

import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exponential backoff within {@code retry.max-duration}: long enough to ride out a node restart
 * or a burst of 429s, bounded so that an outage fails the job (which then replays) rather than
 * hanging it.
 */
final class Backoff {

    private static final Logger LOG = LoggerFactory.getLogger(Backoff.class);

    private final long deadlineNanos;
    private long waitMillis;
    private int attempt;

    Backoff(ElasticsearchSettings settings) {
        this.deadlineNanos = System.nanoTime() + settings.retryMaxDuration().toNanos();
        this.waitMillis = Math.max(1, settings.retryInitialBackoff().toMillis());
    }

    /** Waits before the next attempt, or throws if the retry time is used up. */
    void waitOrGiveUp(String owner, String what, String reason, Exception cause) throws Exception {
        attempt++;
        long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (remainingMillis <= 0) {
            throw new ElasticsearchSinkException(owner + ": gave up on " + what + " after " + attempt
                    + " attempts (retry.max-duration): " + reason, cause);
        }
        long wait = Math.min(waitMillis, remainingMillis);
        LOG.warn("{}: retrying {} in {} ms (attempt {}): {}", owner, what, wait, attempt, reason);
        Thread.sleep(wait);
        waitMillis = Math.min(waitMillis * 2, ElasticsearchSettings.MAX_BACKOFF.toMillis());
    }

    /** Calls {@code request}, retrying it while it fails with a retryable error (429, 5xx, connection). */
    static <T> T retrying(ElasticsearchSettings settings, String owner, String what, Callable<T> request)
            throws Exception {
        Backoff backoff = new Backoff(settings);
        while (true) {
            try {
                return request.call();
            } catch (Exception e) {
                if (!BulkWriter.isRetryable(e)) {
                    throw e;
                }
                backoff.waitOrGiveUp(owner, what, BulkWriter.describe(e), e);
            }
        }
    }
}
