package dev.onceflow.runtime.execution;

import static org.awaitility.Awaitility.await;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.runtime.cli.CountEventsByKey;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.IdempotentWriter;
import dev.onceflow.spi.sink.SinkContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The job behind the golden savepoints in {@code src/test/resources/golden/}: datagen ids
 * {@code 0..ROWS-1} over {@link #KEYS} keys -> keyBy(key) -> {@link CountEventsByKey} -> a sink that
 * keeps what it receives in memory. Its state is what every job has: source split positions
 * (datagen), enumerator state, keyed {@code ValueState} in key groups (the counts), and the operator
 * uids that match them. The sink holds no external transactions, so the savepoint restores on any
 * machine.
 *
 * <p>{@link #main} writes a new golden savepoint: run it when a release changes the checkpoint
 * format, into a new folder named after that release, and keep every older folder, because
 * {@code GoldenSavepointTest} must keep restoring all of them. Never change the constants below:
 * the checked-in savepoints were written with them.
 *
 * <pre>
 * ./mvnw -q -pl core-runtime -am test-compile
 * ./mvnw -q -pl core-runtime dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt
 * java -cp "core-runtime/target/test-classes:core-runtime/target/classes:$(cat /tmp/cp.txt)" \
 *     dev.onceflow.runtime.execution.GoldenSavepointJob core-runtime/src/test/resources/golden/&lt;version&gt;
 * </pre>
 */
public final class GoldenSavepointJob {

    static final long ROWS = 2_000;
    static final int KEYS = 10;
    static final int PARALLELISM = 2;
    /** What the first run delivered before its stop-with-savepoint, next to the savepoint. */
    static final String DELIVERED = "delivered.csv";

    /** Every event the sink of this JVM received, from any job. */
    static final Queue<Event> RECEIVED = new ConcurrentLinkedQueue<>();

    private GoldenSavepointJob() {
    }

    static StreamEnvironment environment(Path checkpoints, RestoreSetting restore, long rowsPerSecond) {
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(PARALLELISM)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofMillis(100))
                        .withDirectory(checkpoints))
                .setRestore(restore);
        env.fromSource(DatagenSource.builder().rows(ROWS).keys(KEYS).rowsPerSecond(rowsPerSecond).build(), "events")
                .uid("events")
                .keyBy(Event::key, Serializers.STRING)
                .process(CountEventsByKey::new).uid("count")
                .sinkTo(new ReceivingSink()).uid("received");
        return env;
    }

    /** Writes {@code <target>/savepoint-<id>/} and {@code <target>/delivered.csv}. */
    public static void main(String[] args) throws Exception {
        Path target = newGoldenFolder(args, "GoldenSavepointJob", "golden");
        Path work = Files.createTempDirectory("onceflow-golden-");
        RECEIVED.clear();
        JobClient client = environment(work, RestoreSetting.fresh(), 2_000).executeAsync("golden");
        await().atMost(Duration.ofSeconds(30)).until(() -> client.progress().recordsRead() >= ROWS / 3);
        keepSavepoint(client, ROWS, target);
    }

    /** The folder named by the only argument, which must not exist yet; exits with a usage line otherwise. */
    static Path newGoldenFolder(String[] args, String job, String root) {
        if (args.length != 1) {
            System.err.println("usage: " + job + " <target folder, e.g. core-runtime/src/test/resources/" + root
                    + "/0.2.0>");
            System.exit(2);
        }
        Path target = Path.of(args[0]);
        if (Files.exists(target)) {
            System.err.println(target + " exists; golden savepoints are never overwritten: pick a new folder");
            System.exit(2);
        }
        return target;
    }

    /**
     * Stops the job with a savepoint and copies it into {@code target}, with what the sink received
     * before it as {@link #DELIVERED}; fails if the job read all {@code rows} first.
     */
    static void keepSavepoint(JobClient client, long rows, Path target) throws Exception {
        CheckpointLocation savepoint = client.triggerSavepoint(true).get(30, TimeUnit.SECONDS);
        JobResult result = client.result().get(30, TimeUnit.SECONDS);
        if (result.status() != JobResult.Status.FINISHED || result.recordsRead() >= rows) {
            throw new IllegalStateException("the job was to stop mid-run with a savepoint, but ended " + result);
        }
        Path source = savepoint.toPath();
        Files.createDirectories(target);
        copyTree(source, target.resolve(source.getFileName().toString()));
        List<Event> delivered = new ArrayList<>(RECEIVED);
        delivered.sort(Comparator.comparingLong(event -> Long.parseLong(event.id())));
        List<String> lines = new ArrayList<>();
        for (Event event : delivered) {
            lines.add(event.id() + "," + event.key() + "," + event.count());
        }
        Files.write(target.resolve(DELIVERED), lines, StandardCharsets.UTF_8);
        System.out.println("wrote " + target.resolve(source.getFileName().toString()) + " and " + delivered.size()
                + " delivered events");
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path copy = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(copy);
                } else {
                    Files.copy(file, copy);
                }
            }
        }
    }

    /** Keeps every record in {@link #RECEIVED}; nothing external, so nothing to recover. */
    static final class ReceivingSink implements IdempotentSink<Event> {

        @Override
        public IdempotentWriter<Event> createWriter(SinkContext context) {
            return new IdempotentWriter<>() {
                @Override
                public void write(Event record) {
                    RECEIVED.add(record);
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            };
        }
    }
}
