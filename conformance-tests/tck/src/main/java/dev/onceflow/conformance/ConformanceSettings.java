package dev.onceflow.conformance;

import java.time.Duration;

/**
 * How hard the suite pushes, from system properties, so a CI run can be quick and a release run
 * thorough. {@code -Donceflow.conformance.profile=full} (the {@code conformance-full} Maven profile)
 * raises the random kills to 50. One more setting is read where it acts:
 * {@code onceflow.conformance.class-data-sharing} ({@link ClassDataSharing}).
 *
 * @param randomKills SIGKILLs in the random-crash case ({@code onceflow.conformance.kills})
 * @param seed seed of the random crash schedule, printed with every failure ({@code onceflow.conformance.seed})
 * @param rows records per case ({@code onceflow.conformance.rows})
 * @param rowsPerSecond rate of the throttle, so crashes hit a running job ({@code onceflow.conformance.rate})
 * @param mode checkpointing mode of the job under test ({@code onceflow.conformance.mode}); the suite's own
 *     tests set {@code at-least-once} to prove that duplicates are reported
 * @param recoveryTimeout how long a case's last run may take: after a crash, first to complete a
 *     checkpoint, and in every case to end. Past it the case kills the job and fails naming what
 *     earlier attempts left behind ({@code onceflow.conformance.recovery-timeout-seconds}, 300)
 */
public record ConformanceSettings(String profile, int randomKills, long seed, long rows, long rowsPerSecond,
        String mode, Duration recoveryTimeout) {

    public static ConformanceSettings fromSystemProperties() {
        String profile = System.getProperty("onceflow.conformance.profile", "quick");
        boolean full = profile.equals("full");
        return new ConformanceSettings(profile,
                Integer.getInteger("onceflow.conformance.kills", full ? 50 : 4),
                Long.getLong("onceflow.conformance.seed", System.nanoTime()),
                Long.getLong("onceflow.conformance.rows", 20_000L),
                Long.getLong("onceflow.conformance.rate", 5_000L),
                System.getProperty("onceflow.conformance.mode", "exactly-once"),
                Duration.ofSeconds(Long.getLong("onceflow.conformance.recovery-timeout-seconds", 300L)));
    }
}
