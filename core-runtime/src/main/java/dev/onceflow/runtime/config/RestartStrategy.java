package dev.onceflow.runtime.config;

import java.time.Duration;
import java.util.Optional;

/**
 * What the runtime does when a task fails inside a running process: restore the latest completed
 * checkpoint and go on, or give up. (When the process itself dies, the CLI's {@code --resume
 * latest} restores the same way.)
 */
public sealed interface RestartStrategy {

    /** Whether another attempt is allowed after a failure at {@code nowMillis}; records it if so. */
    boolean allowRestart(long nowMillis);

    /** How long to wait before the next attempt. */
    Duration delay();

    /**
     * The longest this strategy keeps a job waiting between restarts before it gives up: the
     * delays of every attempt it allows. Empty when it has no bound (a failure rate allows
     * restarts forever as long as failures are rare enough).
     */
    Optional<Duration> longestRecovery();

    static RestartStrategy none() {
        return new None();
    }

    static RestartStrategy fixedDelay(int attempts, Duration delay) {
        return new FixedDelay(attempts, delay, new int[1]);
    }

    static RestartStrategy failureRate(int maxFailures, Duration interval, Duration delay) {
        return new FailureRate(maxFailures, interval, delay, new java.util.ArrayDeque<>());
    }

    /** Fail the job on the first failure. */
    record None() implements RestartStrategy {
        @Override
        public boolean allowRestart(long nowMillis) {
            return false;
        }

        @Override
        public Duration delay() {
            return Duration.ZERO;
        }

        @Override
        public Optional<Duration> longestRecovery() {
            return Optional.of(Duration.ZERO);
        }
    }

    /** Restart up to {@code attempts} times in total, waiting {@code delay} each time. */
    record FixedDelay(int attempts, Duration delay, int[] used) implements RestartStrategy {
        @Override
        public boolean allowRestart(long nowMillis) {
            if (used[0] >= attempts) {
                return false;
            }
            used[0]++;
            return true;
        }

        @Override
        public Optional<Duration> longestRecovery() {
            return Optional.of(delay.multipliedBy(attempts));
        }
    }

    /** Restart unless more than {@code maxFailures} failures happened within {@code interval}. */
    record FailureRate(int maxFailures, Duration interval, Duration delay, java.util.ArrayDeque<Long> failures)
            implements RestartStrategy {
        @Override
        public boolean allowRestart(long nowMillis) {
            failures.addLast(nowMillis);
            while (!failures.isEmpty() && failures.peekFirst() < nowMillis - interval.toMillis()) {
                failures.removeFirst();
            }
            return failures.size() <= maxFailures;
        }

        @Override
        public Optional<Duration> longestRecovery() {
            return Optional.empty();
        }
    }
}
