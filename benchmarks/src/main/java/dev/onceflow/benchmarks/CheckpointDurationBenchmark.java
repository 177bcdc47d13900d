package dev.onceflow.benchmarks;

import dev.onceflow.runtime.checkpoint.CheckpointKind;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.runtime.state.KeyedStateBackend;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.StateBackend;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.state.rocksdb.RocksDBStateBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * How long a checkpoint of RocksDB keyed state takes, full against incremental, by state size.
 *
 * <p>One subtask's RocksDB backend is filled with {@code size-mb} of state (keys with
 * {@code payload}-byte values). Then, {@code checkpoints} times: {@code change} of the keys get a
 * new value, and a checkpoint is taken and made durable in a local checkpoint directory, the
 * whole way a task takes it: the synchronous part, then writing (full: every key group serialized
 * into the task's state file; incremental: the SST files the previous checkpoint did not list
 * uploaded, and a small state file). The first incremental checkpoint uploads everything; the
 * report gives it apart, and the median of the later ones.
 *
 * <p>Run: {@code java -Xmx6g -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*"
 * dev.onceflow.benchmarks.CheckpointDurationBenchmark size-mb=100}.
 */
public final class CheckpointDurationBenchmark {

    private static final int MAX_PARALLELISM = 128;
    private static final StateDescriptor.Value<String> VALUE = StateDescriptor.value("value", Serializers.STRING);

    private CheckpointDurationBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> values = BenchmarkArgs.parse("CheckpointDurationBenchmark", args,
                List.of("size-mb", "payload", "change", "checkpoints"),
                "size-mb=<n>, payload=<bytes>, change=<fraction of keys per checkpoint>, checkpoints=<n>");
        long sizeMb = Long.parseLong(values.getOrDefault("size-mb", "100"));
        int payload = Integer.parseInt(values.getOrDefault("payload", "1000"));
        double change = Double.parseDouble(values.getOrDefault("change", "0.01"));
        int checkpoints = Integer.parseInt(values.getOrDefault("checkpoints", "5"));
        if (sizeMb < 1 || payload < 1 || change <= 0 || change > 1 || checkpoints < 2) {
            System.err.println("CheckpointDurationBenchmark: size-mb and payload >= 1, change in (0, 1], checkpoints >= 2");
            System.exit(2);
        }
        int keys = (int) (sizeMb * 1_000_000 / (payload + 16));
        System.out.printf(Locale.ROOT, "Onceflow checkpoint duration benchmark: RocksDB keyed state of %,d MB (%,d keys x %d"
                + " bytes), %.1f %% of the keys changed before each of %d checkpoints, local checkpoint directory%n",
                sizeMb, keys, payload, change * 100, checkpoints);
        Path root = Files.createTempDirectory("onceflow-checkpoint-benchmark-");
        try {
            for (boolean incremental : new boolean[] {false, true}) {
                run(root.resolve(incremental ? "incremental" : "full"), incremental, keys, payload, change, checkpoints);
            }
        } finally {
            EndToEndBenchmark.deleteRecursively(root);
        }
    }

    private static void run(Path root, boolean incremental, int keys, int payload, double change, int checkpoints)
            throws Exception {
        CheckpointStorage storage = new CheckpointStorage(CheckpointLocation.of(root.resolve("checkpoints")));
        StateBackend backend = new RocksDBStateBackend(root.resolve("local"), incremental);
        SplittableRandom random = new SplittableRandom(7);
        List<Long> millis = new ArrayList<>();
        List<Long> bytes = new ArrayList<>();
        try (KeyedStateBackend<String> state = backend.createKeyedStateBackend(
                new StateBackend.Scope("benchmark", "state", 0, 1, MAX_PARALLELISM, "run"), Serializers.STRING)) {
            ValueState<String> value = state.state(VALUE);
            for (int i = 0; i < keys; i++) {
                state.setCurrentKey("key-" + i);
                value.update(payload(random, payload));
            }
            long lastCompleted = -1;
            for (long id = 1; id <= checkpoints; id++) {
                for (int i = 0; i < keys * change; i++) {
                    state.setCurrentKey("key-" + random.nextInt(keys));
                    value.update(payload(random, payload));
                }
                long before = sharedBytes(root.resolve("checkpoints"));
                long start = System.nanoTime();
                KeyedStateBackend.Result result = state.freeze(new KeyedStateBackend.SnapshotOptions(id, false,
                        lastCompleted, storage.sharedState())).write();
                OperatorSnapshot snapshot = new OperatorSnapshot(Map.of(), Map.of(),
                        result.keyGroups() == null ? new TreeMap<>() : result.keyGroups(), Map.of(), result.nativeState());
                long stateFile = storage.writeTaskState(id, CheckpointKind.CHECKPOINT, "stage1", List.of("state"), 0, 1,
                        Map.of("state", snapshot)).length();
                millis.add((System.nanoTime() - start) / 1_000_000);
                bytes.add(stateFile + sharedBytes(root.resolve("checkpoints")) - before);
                lastCompleted = id;
            }
        }
        String mode = incremental ? "incremental" : "full";
        for (int i = 0; i < millis.size(); i++) {
            System.out.printf(Locale.ROOT, "  %-11s checkpoint %d: %,7d ms, %,13d bytes written%n", mode, i + 1,
                    millis.get(i), bytes.get(i));
        }
        List<Double> later = millis.subList(1, millis.size()).stream().map(Long::doubleValue).toList();
        List<Double> laterBytes = bytes.subList(1, bytes.size()).stream().map(Long::doubleValue).toList();
        System.out.printf(Locale.ROOT, "  %-11s first %,d ms; later ones median %,.0f ms, %,.0f bytes written%n", mode,
                millis.get(0), BenchmarkArgs.median(later), BenchmarkArgs.median(laterBytes));
    }

    private static String payload(SplittableRandom random, int length) {
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = (char) ('a' + random.nextInt(26));
        }
        return new String(chars);
    }

    private static long sharedBytes(Path checkpoints) throws Exception {
        Path shared = checkpoints.resolve("shared");
        if (!Files.isDirectory(shared)) {
            return 0;
        }
        try (var files = Files.walk(shared)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }
}
