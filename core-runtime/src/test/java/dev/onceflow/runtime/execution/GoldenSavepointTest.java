package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.spi.record.Event;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Savepoint compatibility: every savepoint checked into {@code src/test/resources/golden/<version>/}
 * by {@link GoldenSavepointJob} must keep restoring in every later version, with the sources
 * resuming right after the records the savepoint covers and every key's count going on from its
 * value in the savepoint. The savepoints in {@code golden-state-kinds/<version>/}, by
 * {@link GoldenStateKindsJob}, hold every other kind of state too (operator list and union list,
 * keyed list, map, reducing and aggregating state, event-time timers, broadcast state) and are
 * restored at their parallelism and at 3. A change to the metadata, state file or serializer formats that breaks
 * an older savepoint fails here; the fix is a reader for the old format, never a new golden file
 * in place of the old one.
 */
@Timeout(60)
class GoldenSavepointTest {

    private static final String GOLDEN = "golden";
    private static final String GOLDEN_STATE_KINDS = "golden-state-kinds";

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        GoldenStateKindsJob.reset();
    }

    static Stream<String> versions() throws IOException, URISyntaxException {
        return versionsIn(GOLDEN);
    }

    /** Each golden savepoint of every state kind, restored at the parallelism it was taken at and at 3. */
    static Stream<Arguments> stateKindVersions() throws IOException, URISyntaxException {
        return versionsIn(GOLDEN_STATE_KINDS).flatMap(version -> Stream.of(Arguments.of(version, 2),
                Arguments.of(version, 3)));
    }

    private static Stream<String> versionsIn(String root) throws IOException, URISyntaxException {
        try (Stream<Path> folders = Files.list(goldenRoot(root))) {
            List<String> versions = folders.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted()
                    .toList();
            assertThat(versions).as("golden savepoints in src/test/resources/" + root).isNotEmpty();
            return versions.stream();
        }
    }

    @ParameterizedTest(name = "savepoint of {0}")
    @MethodSource("versions")
    void aSavepointOfAnEarlierVersionRestoresSourcePositionsAndKeyedState(String version) throws Exception {
        Path golden = copyGolden(GOLDEN, version);
        Path savepoint = savepointIn(golden);
        List<Event> before = readDelivered(golden.resolve(GoldenSavepointJob.DELIVERED));
        assertThat(before).as("the golden run stopped mid-run").isNotEmpty().hasSizeLessThan((int) GoldenSavepointJob.ROWS);

        JobResult result = GoldenSavepointJob.environment(dir.resolve("checkpoints"), RestoreSetting.fromPath(savepoint), 0)
                .execute("golden-restore");

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        List<Event> after = new ArrayList<>(GoldenSavepointJob.RECEIVED);
        assertThat(result.recordsRead()).as("records read after the restore")
                .isEqualTo(GoldenSavepointJob.ROWS - before.size());
        // Source positions: together the two runs delivered every id once.
        List<Long> ids = Stream.concat(before.stream(), after.stream()).map(e -> Long.parseLong(e.id())).sorted().toList();
        assertThat(ids).as("ids of the golden run and the restored run")
                .isEqualTo(LongStream.range(0, GoldenSavepointJob.ROWS).boxed().toList());
        assertCountsGoOn(before, after, GoldenSavepointJob.KEYS);
    }

    @ParameterizedTest(name = "savepoint of {0} at parallelism {1}")
    @MethodSource("stateKindVersions")
    void aSavepointOfAnEarlierVersionRestoresEveryKindOfState(String version, int parallelism) throws Exception {
        Path golden = copyGolden(GOLDEN_STATE_KINDS, version);
        List<Event> before = readDelivered(golden.resolve(GoldenSavepointJob.DELIVERED));
        assertThat(before).as("the golden run stopped mid-run").isNotEmpty()
                .hasSizeLessThan((int) GoldenStateKindsJob.ROWS);

        JobResult result = GoldenStateKindsJob.environment(dir.resolve("checkpoints"),
                RestoreSetting.fromPath(savepointIn(golden)), parallelism, 0).execute("golden-kinds-restore");

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        List<Event> received = new ArrayList<>(GoldenStateKindsJob.RECEIVED);
        List<Event> after = received.stream().filter(e -> !e.id().startsWith(GoldenStateKindsJob.FINAL_PREFIX)).toList();
        // Source positions of both sources: the broadcast source had ended, the other resumes.
        assertThat(result.recordsRead()).as("records read after the restore")
                .isEqualTo(GoldenStateKindsJob.ROWS - before.size());
        List<Long> ids = Stream.concat(before.stream(), after.stream()).map(e -> Long.parseLong(e.id())).sorted().toList();
        assertThat(ids).as("ids of the golden run and the restored run")
                .isEqualTo(LongStream.range(0, GoldenStateKindsJob.ROWS).boxed().toList());
        assertCountsGoOn(before, after, GoldenStateKindsJob.KEYS);

        // Operator list state: the former subtasks' two entries, each to one new subtask; union
        // list state: both entries, in subtask order, on every new subtask.
        List<Long> listEntries = new ArrayList<>();
        GoldenStateKindsJob.RESTORED_LIST.values().forEach(listEntries::addAll);
        assertThat(listEntries).as("operator list state entries restored").hasSize(GoldenStateKindsJob.PARALLELISM);
        assertThat(listEntries.stream().mapToLong(Long::longValue).sum())
                .as("together they count the records delivered before the savepoint").isEqualTo(before.size());
        assertThat(GoldenStateKindsJob.RESTORED_UNION.keySet()).as("subtasks that restored union state")
                .hasSize(parallelism);
        assertThat(GoldenStateKindsJob.RESTORED_UNION.values()).allSatisfy(union -> {
            assertThat(union).hasSize(GoldenStateKindsJob.PARALLELISM);
            assertThat(union.get(0)).startsWith("subtask-0=");
            assertThat(union.get(1)).startsWith("subtask-1=");
            assertThat(union.stream().mapToLong(e -> Long.parseLong(e.substring(e.indexOf('=') + 1))).sum())
                    .isEqualTo(before.size());
        });
        assertThat(GoldenStateKindsJob.BROADCAST_SEEN).as("broadcast records processed after the restore").isEmpty();

        // Keyed value, list, map, reducing and aggregating state, the restored timer of each key
        // (registered before the savepoint only) and the restored broadcast state, all at once.
        Map<String, Long> rules = new TreeMap<>();
        for (long id = 0; id < GoldenStateKindsJob.BROADCAST_ROWS; id++) {
            rules.merge("key-" + id % GoldenStateKindsJob.KEYS, 1L, Long::sum);
        }
        Map<String, String> expected = new TreeMap<>();
        for (int key = 0; key < GoldenStateKindsJob.KEYS; key++) {
            List<Long> keyIds = new ArrayList<>();
            Map<String, Long> buckets = new TreeMap<>();
            for (long id = key; id < GoldenStateKindsJob.ROWS; id += GoldenStateKindsJob.KEYS) {
                keyIds.add(id);
                buckets.merge("mod3-" + id % 3, 1L, Long::sum);
            }
            long sum = keyIds.stream().mapToLong(Long::longValue).sum();
            expected.put(GoldenStateKindsJob.FINAL_PREFIX + "key-" + key, GoldenStateKindsJob.summary(keyIds.size(),
                    keyIds, buckets, sum, keyIds.get(0) + ".." + keyIds.get(keyIds.size() - 1), rules));
        }
        Map<String, String> finals = new TreeMap<>();
        List<String> twice = new ArrayList<>();
        for (Event event : received) {
            if (event.id().startsWith(GoldenStateKindsJob.FINAL_PREFIX) && finals.put(event.id(), event.payload()) != null) {
                twice.add(event.id());
            }
        }
        assertThat(twice).as("timers that fired twice").isEmpty();
        assertThat(finals.keySet()).as("keys whose restored timer reported their state at the end of input")
                .isEqualTo(expected.keySet());
        expected.forEach((key, state) -> assertThat(finals.get(key)).as("the state of %s at the end of input", key)
                .isEqualTo(state));
    }

    private Path copyGolden(String root, String version) throws IOException, URISyntaxException {
        Path golden = dir.resolve("golden");
        GoldenSavepointJob.copyTree(goldenRoot(root).resolve(version), golden);
        return golden;
    }

    private static Path savepointIn(Path golden) throws IOException {
        try (Stream<Path> files = Files.list(golden)) {
            return files.filter(p -> p.getFileName().toString().startsWith("savepoint-")).findFirst().orElseThrow();
        }
    }

    /** Keyed state: each key's counts in the restored run go on from the savepoint's value. */
    private static void assertCountsGoOn(List<Event> before, List<Event> after, int keys) {
        Map<String, Long> savedCounts = new TreeMap<>();
        for (Event event : before) {
            savedCounts.merge(event.key(), event.count(), Math::max);
        }
        Map<String, List<Long>> countsAfter = after.stream().collect(Collectors.groupingBy(Event::key, TreeMap::new,
                Collectors.mapping(Event::count, Collectors.toList())));
        assertThat(countsAfter.keySet()).hasSize(keys);
        for (Map.Entry<String, List<Long>> entry : countsAfter.entrySet()) {
            long saved = savedCounts.getOrDefault(entry.getKey(), 0L);
            List<Long> counts = entry.getValue().stream().sorted().toList();
            assertThat(counts).as("counts of key %s after the restore (the savepoint held %d)", entry.getKey(), saved)
                    .isEqualTo(LongStream.rangeClosed(saved + 1, saved + counts.size()).boxed().toList());
        }
    }

    private static List<Event> readDelivered(Path file) throws IOException {
        List<Event> events = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String[] fields = line.split(",");
            events.add(new Event(fields[0], fields[1], "", Long.parseLong(fields[2])));
        }
        return events;
    }

    private static Path goldenRoot(String folder) throws URISyntaxException {
        URL root = GoldenSavepointTest.class.getResource("/" + folder);
        assertThat(root).as("test resource folder " + folder + "/").isNotNull();
        java.net.URI uri = root.toURI();
        if (uri.getScheme().equals("jar")) {
            // Run from the runtime's test jar (the RocksDB module runs this test too).
            try {
                java.nio.file.FileSystems.newFileSystem(uri, Map.of());
            } catch (java.nio.file.FileSystemAlreadyExistsException alreadyOpen) {
                // opened by an earlier call
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return Path.of(uri);
    }
}
