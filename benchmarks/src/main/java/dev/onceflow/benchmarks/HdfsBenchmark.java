package dev.onceflow.benchmarks;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.datagen.EventGenerator;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.runtime.execution.JobResult;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.testing.hdfs.HdfsTestCluster;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Throughput of {@code datagen -> filesystem sink} onto a real HDFS with 1 s exactly-once
 * checkpoints, against a plain program writing the same bytes to HDFS, in the same run.
 *
 * <p>The HDFS is a MiniDFSCluster (one name node, one data node) in this JVM, started by the
 * benchmark. The plain program writes with as many threads as the job has subtasks, one file
 * each, through a 64 KiB buffer, and {@code hsync}s before closing, as pre-commit does; its client
 * polls for the close as promptly as the sink's clients do. The job's extra work is checkpointing,
 * one file per subtask and second, and the renames. A plain program's {@code hsync} forces only
 * the file's last block to disk; {@code raw-sync-block} creates the files with
 * {@code CreateFlag.SYNC_BLOCK}, so every block is, which shows what durability of all its bytes
 * costs it. Every run writes into a fresh directory that must end up holding exactly the
 * expected number of bytes in visible files and no hidden ones, or the benchmark fails.
 * Configurations run interleaved after a warm-up round, each after a {@code sync} of the page
 * cache (untimed); medians summarize the rounds.
 *
 * <p>Settings, as system properties or {@code name=value} arguments: {@code rows} (default
 * 60,000,000: 7-17 s a run on the machines measured, so as many checkpoints at 1 s; at 20,000,000 a
 * run on the fastest of them held two or three), {@code rounds} (default 3), {@code configs}
 * (default {@code raw,eo}; {@code off} adds the job without periodic checkpoints, which separates
 * the runtime's cost from checkpointing's; {@code eo-sync} the EO job with its pre-commit waiting
 * on the task thread, which measures what
 * {@link dev.onceflow.spi.sink.TransactionalWriter#preCommitAsync} gains; {@code raw-sync-block}
 * the plain program with every block synced; {@code raw-batch} the plain program generating 100 events into
 * an array before formatting them, see below; {@code raw-shared} the plain program's threads taking
 * ranges of rows from a shared counter, as the job's readers take the datagen source's chunks on
 * demand, so neither side's threads finish far apart).
 *
 * <p>The plain program generates each event and formats it in one loop, so the JIT compiles both
 * together and formats fields the generator sets to constants (the count, always 0) as
 * constants. The sink gets its events through the runtime's chain and cannot. {@code raw-batch}
 * shows what that is worth to the plain program; the target is judged against {@code raw}, the
 * baseline it was set against.
 */
public final class HdfsBenchmark {

    static final int PARALLELISM = 2;
    static final int KEYS = 1000;
    static final int PAYLOAD_SIZE = 16;
    /** The target: the sink at 1 s checkpoints keeps at least 0.9 of the plain program's throughput. */
    static final double TARGET_RATIO = 0.9;

    /** The configurations compared; the first is the baseline of every ratio. */
    enum Config {
        RAW("raw", "plain HDFS writer, 2 threads", null),
        /** The plain program with every block forced to disk as it completes, not only the last. */
        RAW_SYNC_BLOCK("raw-sync-block", "plain writer, SYNC_BLOCK", null),
        /** The plain program formatting events it generated into an array first, as the sink gets them from elsewhere. */
        RAW_BATCH("raw-batch", "plain writer, batches of events", null),
        /** The plain program's threads taking ranges of rows from a shared counter, as the job's readers take chunks. */
        RAW_SHARED("raw-shared", "plain writer, shared ranges", null),
        EXACTLY_ONCE("eo", "filesystem sink, EO 1 s", Duration.ofSeconds(1)),
        /** EO with pre-commit waiting on the task thread for hsync and close, as before preCommitAsync. */
        EXACTLY_ONCE_SYNC("eo-sync", "EO 1 s, synchronous pre-commit", Duration.ofSeconds(1)),
        /** The job without periodic checkpoints (only the final one): what the runtime alone costs. */
        NO_CHECKPOINTS("off", "filesystem sink, checkpoints off", Duration.ZERO);

        final String shortName;
        final String label;
        final Duration interval;

        Config(String shortName, String label, Duration interval) {
            this.shortName = shortName;
            this.label = label;
            this.interval = interval;
        }
    }

    private final long rows;
    private final int rounds;
    private final List<Config> configs;
    private final HdfsTestCluster hdfs;
    private final Path checkpointRoot;
    private final long expectedBytes;
    private int runCounter;

    HdfsBenchmark(long rows, int rounds, List<Config> configs, HdfsTestCluster hdfs, Path checkpointRoot) {
        this.rows = rows;
        this.rounds = rounds;
        this.configs = configs;
        this.hdfs = hdfs;
        this.checkpointRoot = checkpointRoot;
        EventGenerator generator = new EventGenerator(KEYS, PAYLOAD_SIZE);
        long bytes = 0;
        for (long sequence = 0; sequence < rows; sequence++) {
            bytes += line(generator, sequence).length;
        }
        this.expectedBytes = bytes;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> values = BenchmarkArgs.parse("HdfsBenchmark", args, List.of("rows", "rounds", "configs"),
                "rows=<n>, rounds=<n>, configs=<raw,eo,eo-sync,off,raw-sync-block,raw-batch,raw-shared>");
        long rows = Long.parseLong(values.getOrDefault("rows", "60000000").replace("_", ""));
        int rounds = Integer.parseInt(values.getOrDefault("rounds", "3"));
        List<Config> configs = BenchmarkArgs.configs(values.getOrDefault("configs", "raw,eo"), Config.values(),
                c -> c.shortName);
        if (rows < 1 || rounds < 1) {
            System.err.println("HdfsBenchmark: rows and rounds must be >= 1");
            System.exit(2);
        }
        Path root = Files.createTempDirectory("onceflow-hdfs-benchmark-");
        try (HdfsTestCluster hdfs = HdfsTestCluster.start(root.resolve("dfs"), 1)) {
            HdfsBenchmark benchmark = new HdfsBenchmark(rows, rounds, configs, hdfs, root.resolve("checkpoints"));
            Map<Config, List<Double>> results = benchmark.runAll();
            System.out.println();
            System.out.print(benchmark.rounds().report(results, Config.RAW, Config.EXACTLY_ONCE, TARGET_RATIO,
                    "the filesystem sink at 1 s"));
        } finally {
            EndToEndBenchmark.deleteRecursively(root);
        }
    }

    Map<Config, List<Double>> runAll() throws Exception {
        System.out.printf(Locale.ROOT, "Onceflow HDFS benchmark: datagen(keys=%d, payload=%d, parallelism %d) -> "
                + "filesystem sink on HDFS (MiniDFSCluster, 1 data node), checkpoints every 1 s; "
                + "baseline: a plain program writing the same bytes with %d threads%n", KEYS, PAYLOAD_SIZE,
                PARALLELISM, PARALLELISM);
        System.out.printf(Locale.ROOT, "rows per run %,d (%,d bytes), rounds %d (after 1 warm-up round); Java %s on %d "
                + "processors%n", rows, expectedBytes, rounds, System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
        return rounds().run(rounds, this::runOnce);
    }

    /** One run into a fresh directory; returns rows per second, after checking the directory's bytes. */
    double runOnce(Config config) throws Exception {
        String directory = hdfs.uri() + "/bench-" + config.shortName + "-" + (++runCounter);
        // The previous run's 700 MB may still be on their way to disk, slowing whichever run comes
        // next (the sink's hsyncs most): each run starts with nothing pending, outside the timing.
        new ProcessBuilder("sync").inheritIO().start().waitFor();
        System.gc();
        long start = System.nanoTime();
        if (config.interval == null) {
            rawWrite(directory, config);
        } else {
            runJob(config, directory);
        }
        long nanos = System.nanoTime() - start;
        verify(config, directory);
        hdfs.fileSystem().delete(new org.apache.hadoop.fs.Path(directory), true);
        return rows * 1e9 / nanos;
    }

    /**
     * The baseline: one thread and one file per subtask's share, synced once at the end; with
     * {@code raw-sync-block}, each block is also forced to disk when it is complete; with
     * {@code raw-batch}, 100 events are generated into an array before they are formatted; with
     * {@code raw-shared}, the threads take ranges of rows from a shared counter.
     */
    private void rawWrite(String directory, Config config) throws Exception {
        boolean syncBlocks = config == Config.RAW_SYNC_BLOCK;
        boolean batches = config == Config.RAW_BATCH;
        // raw-shared: ranges of the size of the job's chunks (the datagen source cuts 20 M rows
        // into 64 ranges of 4 chunks), taken from one counter by whichever thread is free.
        long rangeRows = Math.max(1, rows / (64 * 4));
        AtomicLong nextRange = new AtomicLong();
        ExecutorService threads = Executors.newFixedThreadPool(PARALLELISM);
        try (FileSystem fs = FileSystem.newInstance(hdfs.uri(), FileSystemSink.clientConfiguration(hdfs.configuration()))) {
            List<Future<Void>> writers = new ArrayList<>();
            for (int t = 0; t < PARALLELISM; t++) {
                int thread = t;
                writers.add(threads.submit(() -> {
                    EventGenerator generator = new EventGenerator(KEYS, PAYLOAD_SIZE);
                    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(directory, "raw-" + thread);
                    try (FSDataOutputStream file = syncBlocks
                            ? fs.create(path, FsPermission.getFileDefault(), EnumSet.of(CreateFlag.CREATE,
                                    CreateFlag.SYNC_BLOCK), 4096, fs.getDefaultReplication(path),
                                    fs.getDefaultBlockSize(path), null)
                            : fs.create(path, false)) {
                        OutputStream out = new BufferedOutputStream(file, 64 * 1024);
                        if (batches) {
                            Event[] batch = new Event[100];
                            long sequence = thread;
                            while (sequence < rows) {
                                int size = 0;
                                for (; size < batch.length && sequence < rows; size++, sequence += PARALLELISM) {
                                    batch[size] = generator.eventAt(sequence);
                                }
                                for (int i = 0; i < size; i++) {
                                    out.write(line(batch[i]));
                                }
                            }
                        } else if (config == Config.RAW_SHARED) {
                            for (long from = nextRange.getAndAdd(rangeRows); from < rows;
                                    from = nextRange.getAndAdd(rangeRows)) {
                                for (long sequence = from, to = Math.min(rows, from + rangeRows); sequence < to;
                                        sequence++) {
                                    out.write(line(generator, sequence));
                                }
                            }
                        } else {
                            for (long sequence = thread; sequence < rows; sequence += PARALLELISM) {
                                out.write(line(generator, sequence));
                            }
                        }
                        out.flush();
                        file.hsync();
                    }
                    return null;
                }));
            }
            for (Future<Void> writer : writers) {
                writer.get();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private void runJob(Config config, String directory) throws Exception {
        FileSystemSink sink = FileSystemSink.builder(directory).configuration(hdfs.configuration()).build();
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(PARALLELISM)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(config.interval)
                        .withDirectory(checkpointRoot));
        env.fromSource(DatagenSource.builder().rows(rows).keys(KEYS).payloadSize(PAYLOAD_SIZE).rowsPerSecond(0)
                        .splitAssignment(DatagenSource.SplitAssignment.ON_DEMAND).build(),
                        "datagen").uid("datagen")
                .sinkTo(config == Config.EXACTLY_ONCE_SYNC ? new SynchronousPreCommitSink<>(sink) : sink).uid("hdfs");
        JobClient client = env.executeAsync("hdfs-" + runCounter);
        JobResult result = client.result().get();
        if (result.status() != JobResult.Status.FINISHED || result.restarts() != 0) {
            throw new IllegalStateException("benchmark job into " + directory + " ended " + result.status() + " after "
                    + result.restarts() + " restarts; the throughput would be meaningless");
        }
        EndToEndBenchmark.deleteRecursively(client.jobDirectory().toPath());
    }

    /** Visible files must hold exactly the expected bytes, and no hidden (in-progress) file may be left. */
    private void verify(Config config, String directory) throws IOException {
        long visible = 0;
        long firstSubtask = 0;
        List<String> hidden = new ArrayList<>();
        for (FileStatus file : hdfs.fileSystem().listStatus(new org.apache.hadoop.fs.Path(directory))) {
            String name = file.getPath().getName();
            if (name.startsWith(".")) {
                hidden.add(name);
            } else {
                visible += file.getLen();
                firstSubtask += name.startsWith("part-0-") ? file.getLen() : 0;
            }
        }
        if (visible != expectedBytes || !hidden.isEmpty()) {
            throw new IllegalStateException(config.label + " left " + visible + " bytes in visible files and hidden "
                    + "files " + hidden + " in " + directory + "; expected exactly " + expectedBytes + " bytes and none");
        }
        if (config.interval != null) {
            // The datagen source hands out chunks as readers ask, so a subtask that gets less of the
            // machine writes less; the plain writer's threads always write half each.
            System.out.printf(Locale.ROOT, "           %s: subtask 0 wrote %.1f %% of the bytes%n", config.label,
                    100.0 * firstSubtask / visible);
        }
    }

    private static byte[] line(EventGenerator generator, long sequence) {
        return line(generator.eventAt(sequence));
    }

    private static byte[] line(Event event) {
        return (EventFormat.toLine(event) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private InterleavedRounds<Config> rounds() {
        return new InterleavedRounds<>(configs, c -> c.label, "rows");
    }

}
