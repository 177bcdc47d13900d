package dev.onceflow.conformance;

import java.util.List;

/**
 * The runtime a suite runs the job under test on. Each run is a child JVM started as
 * {@code java <jvmOptions> -cp <the test's classpath> <mainClass> run <job.yaml> --resume <latest|dir>},
 * which reads the suite's job file, arms the fault point given as {@code -Donceflow.fault}, halts
 * with {@code FaultPoints.HALT_EXIT_CODE} there, prints {@code Job <name>: ...; checkpoints every ...}
 * once the job runs, exits 0 when the job ends, and serves {@code onceflow savepoint} through
 * {@code _control.json} in the job's checkpoint directory.
 *
 * @param name short name, appended to the connector's name in reports ({@code sink-kafka-on-flink})
 * @param mainClass the child JVM's main class
 * @param jvmOptions options of the child JVM before {@code -cp}
 * @param checkpointTimedOut what the job's log says when a checkpoint is aborted by its timeout
 */
public record ExecutionTarget(String name, String mainClass, List<String> jvmOptions, String checkpointTimedOut) {

    /** Onceflow's own runtime: the {@code onceflow} CLI. */
    public static final ExecutionTarget ONCEFLOW = new ExecutionTarget("onceflow", "dev.onceflow.runtime.cli.OnceflowCli",
            List.of("-Xmx512m", "-XX:TieredStopAtLevel=1"), "aborted: timed out");

    public ExecutionTarget {
        jvmOptions = List.copyOf(jvmOptions);
    }

    /** What reports and work directories append to a connector's name; nothing for Onceflow's runtime. */
    String suffix() {
        return equals(ONCEFLOW) ? "" : "-on-" + name;
    }
}
