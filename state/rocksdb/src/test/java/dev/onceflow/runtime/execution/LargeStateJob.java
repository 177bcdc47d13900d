package dev.onceflow.runtime.execution;

import static org.awaitility.Awaitility.await;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A job whose keyed state is several times the heap, run in a child JVM by
 * {@code RocksDBStateLargerThanHeapTest}: datagen ids {@code 0..2*KEYS-1} over {@link #KEYS} keys, so
 * every key is seen twice, in id order (the keys are a multiple of the splits, so both ids of a
 * key are in one split). The first visit stores {@link #PAYLOAD_CHARS} random characters derived
 * from the key; the second checks them and emits {@code Event(id, key, "ok" or what was wrong, 2)}
 * to the filesystem sink.
 *
 * <p>Arguments: a mode, the checkpoint directory, the output directory. {@code fail}: once, late
 * in the second pass, the job fails and restores its latest incremental checkpoint, state and
 * all; prints {@code restarts=<n> status=<status>}. {@code savepoint}: a stop-with-savepoint
 * early in the second pass; prints {@code savepoint=<directory>}. {@code resume <savepoint>}:
 * runs from that savepoint to the end. Exits 0 when the job finished.
 */
public final class LargeStateJob {

    static final int KEYS = 300_000;
    static final int PAYLOAD_CHARS = 1_000;
    static final long ROWS = 2L * KEYS;
    /** From this id on, the job fails once (mode {@code fail}), as soon as the condition below holds. */
    static final long FAIL_FROM = KEYS + KEYS / 2;
    /**
     * Rows per second but in mode {@code resume}: time for a checkpoint of the whole state before
     * the end ({@code fail}), for the savepoint to stop the job before it ends ({@code savepoint}).
     */
    static final long RATE = 40_000;

    private static final char[] ALPHABET =
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_".toCharArray();
    private static final AtomicBoolean FAILED = new AtomicBoolean();
    private static volatile boolean failOnce;
    private static volatile Path jobDirectory;
    /** When this JVM first saw an id of the second pass past its first eighth (every key stored). */
    private static volatile long secondPassMillis;

    private LargeStateJob() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        failOnce = mode.equals("fail");
        jobDirectory = Path.of(args[1], "large-state");
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(2)
                // Every checkpoint is kept, so the test can measure the one the restore read.
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofSeconds(1))
                        .withDirectory(Path.of(args[1])).withRetained(1_000))
                .setRestartStrategy(failOnce ? RestartStrategy.fixedDelay(1, Duration.ofMillis(100))
                        : RestartStrategy.none())
                .setRestore(mode.equals("resume") ? RestoreSetting.fromPath(Path.of(args[3])) : RestoreSetting.fresh());
        env.fromSource(DatagenSource.builder().rows(ROWS).keys(KEYS).rowsPerSecond(mode.equals("resume") ? 0 : RATE).build(),
                        "events").uid("events")
                .keyBy(Event::key, Serializers.STRING)
                .process(SecondVisit::new).uid("visits")
                .sinkTo(FileSystemSink.builder(args[2]).build()).uid("files");
        JobResult result;
        if (mode.equals("savepoint")) {
            JobClient client = env.executeAsync("large-state");
            await().atMost(Duration.ofMinutes(5)).until(() -> client.progress().recordsRead() >= KEYS + KEYS / 8);
            CheckpointLocation savepoint = client.triggerSavepoint(true).get(5, TimeUnit.MINUTES);
            result = client.result().get(5, TimeUnit.MINUTES);
            System.out.println("savepoint=" + savepoint.toPath() + " read=" + result.recordsRead());
        } else {
            result = env.execute("large-state");
        }
        System.out.println("restarts=" + result.restarts() + " status=" + result.status());
        System.exit(result.status() == JobResult.Status.FINISHED ? 0 : 1);
    }

    /**
     * Whether a checkpoint completed after the second pass began, so the restore reads a
     * checkpoint of every key's state (its {@code _metadata} is written last).
     */
    private static boolean checkpointedSecondPass() {
        try (java.util.stream.Stream<Path> dirs = java.nio.file.Files.list(jobDirectory)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("chk-")).map(d -> d.resolve("_metadata"))
                    .anyMatch(metadata -> {
                        try {
                            return java.nio.file.Files.getLastModifiedTime(metadata).toMillis() > secondPassMillis;
                        } catch (java.io.IOException notCompleted) {
                            return false;
                        }
                    });
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** The characters the first visit of {@code key} stores. */
    static String payloadOf(String key) {
        SplittableRandom random = new SplittableRandom(key.hashCode());
        char[] chars = new char[PAYLOAD_CHARS];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = ALPHABET[random.nextInt(ALPHABET.length)];
        }
        return new String(chars);
    }

    /** Stores the payload at a key's first visit; checks it and emits at the second. */
    static final class SecondVisit extends KeyedProcessFunction<String, Event, Event> {

        private ValueState<String> stored;
        private ValueState<Long> visits;

        @Override
        public void open(KeyedContext context) {
            stored = context.getState(StateDescriptor.value("payload", Serializers.STRING));
            visits = context.getState(StateDescriptor.value("visits", Serializers.LONG));
        }

        @Override
        public void processElement(Event event, Context<String> context, Collector<Event> out) {
            long id = Long.parseLong(event.id());
            if (id >= KEYS + KEYS / 8 && secondPassMillis == 0) {
                secondPassMillis = System.currentTimeMillis();
            }
            if (failOnce && id >= FAIL_FROM && id % 1_000 == 0 && !FAILED.get() && checkpointedSecondPass()
                    && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure at id " + id);
            }
            Long seen = visits.value();
            long now = seen == null ? 1 : seen + 1;
            visits.update(now);
            if (id < KEYS) {
                stored.update(payloadOf(event.key()));
                return;
            }
            String value = stored.value();
            String verdict = value == null ? "payload-lost" : value.equals(payloadOf(event.key())) ? "ok"
                    : "payload-changed";
            out.collect(new Event(event.id(), event.key(), verdict, now));
        }
    }
}
