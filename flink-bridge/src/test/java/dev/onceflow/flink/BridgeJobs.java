package dev.onceflow.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.LongStream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** What the bridge's job tests share: the cluster, the job settings, running to the end, the verdict. */
final class BridgeJobs {

    private BridgeJobs() {
    }

    /**
     * One task manager with two slots: a parallelism-2 job, chained, fits. Its REST endpoint and
     * task manager listen on 127.0.0.1 only, on free ports.
     */
    static MiniClusterExtension miniCluster() {
        Configuration loopback = new Configuration();
        loopback.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        loopback.set(RestOptions.ADDRESS, "127.0.0.1");
        loopback.set(RestOptions.BIND_PORT, "0");
        loopback.set(TaskManagerOptions.HOST, "127.0.0.1");
        loopback.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
        loopback.set(org.apache.flink.configuration.JobManagerOptions.ADDRESS, "127.0.0.1");
        loopback.set(org.apache.flink.configuration.JobManagerOptions.BIND_HOST, "127.0.0.1");
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setConfiguration(loopback)
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(2)
                .build());
    }

    /** Parallelism 2, exactly-once checkpoints every 100 ms, and up to 3 restarts 100 ms apart. */
    static StreamExecutionEnvironment environment() {
        Configuration config = new Configuration();
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        env.enableCheckpointing(100);
        return env;
    }

    /**
     * Runs a bounded job to its end. One that does not end within {@code seconds} lost track of a
     * split: it is cancelled, so it does not hold the cluster's slots for the next test, and fails.
     */
    static void runToEnd(StreamExecutionEnvironment env, String name, int seconds) throws Exception {
        JobClient job = env.executeAsync(name);
        try {
            job.getJobExecutionResult().get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            job.cancel().get(30, TimeUnit.SECONDS);
            throw new AssertionError("the bounded job did not finish within " + seconds + " s: a split was lost"
                    + " or never ended", e);
        }
    }

    /**
     * The exactly-once verdict over datagen ids {@code 0..rows-1}: each id once, and every key's
     * running counts exactly 1..n (lost or doubled keyed state shows as a wrong count).
     */
    static void assertExactlyOnce(Map<String, Integer> occurrences, Map<String, List<Long>> countsByKey, long rows,
            int keys) {
        assertEachIdOnce(occurrences, rows);
        assertThat(countsByKey).as("keys").hasSize(keys);
        countsByKey.forEach((key, values) -> assertThat(values.stream().sorted().toList())
                .as("running counts of %s are 1..n", key)
                .isEqualTo(LongStream.rangeClosed(1, values.size()).boxed().toList()));
    }

    /** Datagen ids {@code 0..rows-1}, each exactly once in {@code occurrences} (id to how often it was seen). */
    static void assertEachIdOnce(Map<String, Integer> occurrences, long rows) {
        TreeSet<Long> lost = new TreeSet<>();
        for (long id = 0; id < rows; id++) {
            if (!occurrences.containsKey(Long.toString(id))) {
                lost.add(id);
            }
        }
        TreeSet<String> duplicated = new TreeSet<>();
        occurrences.forEach((id, n) -> {
            if (n > 1) {
                duplicated.add(id);
            }
        });
        assertThat(lost).as("lost ids").isEmpty();
        assertThat(duplicated).as("duplicated ids").isEmpty();
        assertThat(occurrences).as("ids").hasSize((int) rows);
    }
}
