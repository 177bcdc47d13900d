package dev.onceflow.runtime.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.runtime.config.CheckpointingMode;
import dev.onceflow.runtime.config.CommitRetry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The throttle's rate is a ceiling at every rate, low ones included: crash tests slow their input
 * with it so that a crash comes while the job runs. Only a lower bound on the time is checked, which
 * a busy machine cannot break.
 */
class ThrottleOperatorTest {

    @Test
    void aLowRateIsKeptAsAnUpperBound() throws Exception {
        // 200 records per second over 2 subtasks: 100 per second, 10 ms apart, in this one.
        ThrottleOperator<Integer> throttle = new ThrottleOperator<>(200);
        List<Object> passed = new ArrayList<>();
        throttle.setup(new OperatorContext("throttle-test", "throttle", "throttle", 0, 2, 128, 1, "attempt-1",
                CheckpointingMode.EXACTLY_ONCE, 1, CommitRetry.DEFAULT, null, Optional.empty(), null, null, null),
                passed::add);
        throttle.open();

        long start = System.nanoTime();
        for (int i = 0; i < 31; i++) {
            throttle.processElement(i);
        }
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(passed).hasSize(31).startsWith(0, 1, 2).endsWith(30);
        assertThat(elapsedMillis).as("31 records at 100 per second: the last is due 300 ms after the first")
                .isGreaterThanOrEqualTo(300);
    }
}
