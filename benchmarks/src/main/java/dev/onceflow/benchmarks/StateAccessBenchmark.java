package dev.onceflow.benchmarks;

import dev.onceflow.runtime.state.HeapStateBackend;
import dev.onceflow.runtime.state.KeyedStateBackend;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.StateBackend;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.state.rocksdb.RocksDBStateBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Keyed state access, heap backend vs RocksDB backend, in one run on one machine: what a keyed
 * function pays per record for the state it touches.
 *
 * <p>Each run opens a fresh backend of one subtask (all 128 key groups), writes every key once
 * (not timed), then times {@code ops} accesses to keys drawn at random, the same sequence for
 * every configuration. Two workloads, chosen with {@code workload}:
 * <ul>
 *   <li>{@code count}: read a {@code ValueState<Long>} and write it back incremented, what
 *       {@code CountByKey} does per record;</li>
 *   <li>{@code append}: add one element to a {@code ListState<String>} capped at 16 elements, a
 *       buffer per key.</li>
 * </ul>
 * Run: {@code java -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*"
 * dev.onceflow.benchmarks.StateAccessBenchmark keys=1000000 ops=3000000 rounds=3 workload=count}.
 */
public final class StateAccessBenchmark {

    private static final int MAX_PARALLELISM = 128;
    private static final StateDescriptor.Value<Long> COUNT = StateDescriptor.value("count", Serializers.LONG);
    private static final StateDescriptor.List<String> BUFFER = StateDescriptor.list("buffer", Serializers.STRING);

    enum Config {
        HEAP("heap", "heap"),
        ROCKSDB("rocksdb", "rocksdb");

        final String shortName;
        final String label;

        Config(String shortName, String label) {
            this.shortName = shortName;
            this.label = label;
        }
    }

    private final String[] keys;
    private final int[] sequence;
    private final String workload;
    private final Path local;

    private StateAccessBenchmark(int keyCount, int ops, String workload, Path local) {
        this.keys = new String[keyCount];
        for (int i = 0; i < keyCount; i++) {
            keys[i] = "key-" + i;
        }
        SplittableRandom random = new SplittableRandom(42);
        this.sequence = new int[ops];
        for (int i = 0; i < ops; i++) {
            sequence[i] = random.nextInt(keyCount);
        }
        this.workload = workload;
        this.local = local;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> values = BenchmarkArgs.parse("StateAccessBenchmark", args,
                List.of("keys", "ops", "rounds", "workload", "configs"),
                "keys=<n>, ops=<n>, rounds=<n>, workload=<count|append>, configs=<heap,rocksdb>");
        int keyCount = Integer.parseInt(values.getOrDefault("keys", "1000000").replace("_", ""));
        int ops = Integer.parseInt(values.getOrDefault("ops", "3000000").replace("_", ""));
        int rounds = Integer.parseInt(values.getOrDefault("rounds", "3"));
        String workload = values.getOrDefault("workload", "count");
        List<Config> configs = BenchmarkArgs.configs(values.getOrDefault("configs", "heap,rocksdb"), Config.values(),
                c -> c.shortName);
        if (keyCount < 1 || ops < 1 || rounds < 1 || !List.of("count", "append").contains(workload)) {
            System.err.println("StateAccessBenchmark: keys, ops and rounds must be >= 1, workload count or append");
            System.exit(2);
        }
        Path local = Files.createTempDirectory("onceflow-state-benchmark-");
        try {
            StateAccessBenchmark benchmark = new StateAccessBenchmark(keyCount, ops, workload, local);
            System.out.printf(Locale.ROOT, "Onceflow state access benchmark: workload %s, %,d keys, %,d accesses per run,"
                    + " one subtask owning all %d key groups; RocksDB in %s%n", workload, keyCount, ops, MAX_PARALLELISM,
                    local);
            InterleavedRounds<Config> interleaved = new InterleavedRounds<>(configs, c -> c.label, "accesses");
            Map<Config, List<Double>> results = interleaved.run(rounds, benchmark::run);
            System.out.println();
            System.out.print(interleaved.report(results, Config.HEAP, Config.ROCKSDB, 0, ""));
        } finally {
            EndToEndBenchmark.deleteRecursively(local);
        }
    }

    private double run(Config config) throws Exception {
        StateBackend backend = config == Config.HEAP ? new HeapStateBackend() : new RocksDBStateBackend(local);
        try (KeyedStateBackend<String> state = backend.createKeyedStateBackend(
                new StateBackend.Scope("benchmark", "state", 0, 1, MAX_PARALLELISM, "run"), Serializers.STRING)) {
            ValueState<Long> count = state.state(COUNT);
            ListState<String> buffer = state.state(BUFFER);
            boolean counting = workload.equals("count");
            for (String key : keys) {
                state.setCurrentKey(key);
                if (counting) {
                    count.update(0L);
                } else {
                    buffer.add(key);
                }
            }
            long start = System.nanoTime();
            for (int index : sequence) {
                state.setCurrentKey(keys[index]);
                if (counting) {
                    count.update(count.value() + 1);
                } else if (buffer.get().size() >= 16) {
                    buffer.update(List.of(keys[index]));
                } else {
                    buffer.add(keys[index]);
                }
            }
            return sequence.length / ((System.nanoTime() - start) / 1e9);
        }
    }
}
