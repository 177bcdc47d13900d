package dev.onceflow.conformance;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The job the suite runs: a source, a throttle (so that crashes hit a running job whatever the
 * source's speed), a keyed running count (so lost or doubled state shows up as wrong counts), and
 * a sink, written as a job file.
 *
 * @param rowsPerSecond the throttle's rate; 0 for none
 * @param checkpointDirectory {@code checkpoints.dir}: local by default, or on HDFS
 * @param sinkFormat the sink's {@code format:} (a name, or a map of type and options); null for the sink's default
 */
public record JobSpec(String name, int parallelism, String sourceType, Map<String, Object> sourceOptions,
        String sinkType, Map<String, Object> sinkOptions, long rowsPerSecond, String mode, String interval,
        String timeout, CheckpointLocation checkpointDirectory, Object sinkFormat) {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** The {@code mode} that runs the job exactly-once with unaligned checkpoints. */
    public static final String UNALIGNED_MODE = "exactly-once-unaligned";

    /** A spec with the suite's defaults: parallelism 2, EXACTLY_ONCE, a checkpoint every 100 ms. */
    public static JobSpec of(String sourceType, Map<String, Object> sourceOptions, String sinkType,
            Map<String, Object> sinkOptions, long rowsPerSecond, Path workDirectory) {
        return new JobSpec("conformance", 2, sourceType, sourceOptions, sinkType, sinkOptions, rowsPerSecond,
                "exactly-once", "100ms", "30s", CheckpointLocation.of(workDirectory.resolve("checkpoints")), null);
    }

    public JobSpec withParallelism(int value) {
        return new JobSpec(name, value, sourceType, sourceOptions, sinkType, sinkOptions, rowsPerSecond, mode, interval,
                timeout, checkpointDirectory, sinkFormat);
    }

    public JobSpec withMode(String value) {
        return new JobSpec(name, parallelism, sourceType, sourceOptions, sinkType, sinkOptions, rowsPerSecond, value,
                interval, timeout, checkpointDirectory, sinkFormat);
    }

    public JobSpec withTimeout(String value) {
        return new JobSpec(name, parallelism, sourceType, sourceOptions, sinkType, sinkOptions, rowsPerSecond, mode,
                interval, value, checkpointDirectory, sinkFormat);
    }

    /** This spec with one sink option added or replaced, e.g. a small batch size for a fault test. */
    public JobSpec withSinkOption(String key, Object value) {
        Map<String, Object> options = new java.util.LinkedHashMap<>(sinkOptions);
        options.put(key, value);
        return new JobSpec(name, parallelism, sourceType, sourceOptions, sinkType, Map.copyOf(options), rowsPerSecond,
                mode, interval, timeout, checkpointDirectory, sinkFormat);
    }

    /** This spec with one source option added or replaced, e.g. another range of ids. */
    public JobSpec withSourceOption(String key, Object value) {
        Map<String, Object> options = new java.util.LinkedHashMap<>(sourceOptions);
        options.put(key, value);
        return new JobSpec(name, parallelism, sourceType, Map.copyOf(options), sinkType, sinkOptions, rowsPerSecond,
                mode, interval, timeout, checkpointDirectory, sinkFormat);
    }

    /** This spec with another sink type and the same options, e.g. the sink under test behind a fault wrapper. */
    public JobSpec withSinkType(String value) {
        return new JobSpec(name, parallelism, sourceType, sourceOptions, value, sinkOptions, rowsPerSecond, mode,
                interval, timeout, checkpointDirectory, sinkFormat);
    }

    /** This spec with the sink's {@code format:} set, e.g. {@code "parquet"}. */
    public JobSpec withSinkFormat(Object value) {
        return new JobSpec(name, parallelism, sourceType, sourceOptions, sinkType, sinkOptions, rowsPerSecond, mode,
                interval, timeout, checkpointDirectory, value);
    }

    public JobSpec withCheckpointDirectory(CheckpointLocation value) {
        return new JobSpec(name, parallelism, sourceType, sourceOptions, sinkType, sinkOptions, rowsPerSecond, mode,
                interval, timeout, value, sinkFormat);
    }

    public JobSpec withRowsPerSecond(long value) {
        return new JobSpec(name, parallelism, sourceType, sourceOptions, sinkType, sinkOptions, value, mode, interval,
                timeout, checkpointDirectory, sinkFormat);
    }

    /** Where the job's checkpoints and savepoints go. */
    public CheckpointLocation jobDirectory() {
        return checkpointDirectory.resolve(name);
    }

    /** Writes the job file. */
    public Path write(Path file) throws IOException {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("name", name);
        job.put("parallelism", parallelism);
        job.put("source", Map.of("type", sourceType, "uid", "source", "options", sourceOptions));
        List<Map<String, Object>> steps = new ArrayList<>();
        if (rowsPerSecond > 0) {
            steps.add(Map.of("type", "throttle", "uid", "throttle", "options", Map.of("rows-per-second", rowsPerSecond)));
        }
        steps.add(Map.of("type", "count-by-key", "uid", "count"));
        job.put("steps", steps);
        Map<String, Object> sink = new LinkedHashMap<>(Map.of("type", sinkType, "uid", "sink", "options", sinkOptions));
        if (sinkFormat != null) {
            sink.put("format", sinkFormat);
        }
        job.put("sink", sink);
        // Aborted checkpoints are part of what the suite tests; they must not fail the job.
        // "exactly-once-unaligned": exactly-once with unaligned checkpoints.
        boolean unaligned = mode.equals(UNALIGNED_MODE);
        job.put("checkpoints", Map.of("interval", interval, "mode", unaligned ? "exactly-once" : mode,
                "unaligned", unaligned, "dir", checkpointDirectory.toString(), "timeout", timeout, "retained", 3,
                "tolerable-failures", 5));
        YAML.writeValue(file.toFile(), job);
        return file;
    }
}
