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
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Savepoint compatibility: every savepoint checked into {@code src/test/resources/golden/<version>/}
 * by {@link GoldenSavepointJob} must keep restoring in every later version, with the sources
 * resuming right after the records the savepoint covers and every key's count going on from its
 * value in the savepoint. A change to the metadata, state file or serializer formats that breaks
 * an older savepoint fails here; the fix is a reader for the old format, never a new golden file
 * in place of the old one.
 */
@Timeout(60)
class GoldenSavepointTest {

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        GoldenSavepointJob.RECEIVED.clear();
    }

    static Stream<String> versions() throws IOException, URISyntaxException {
        try (Stream<Path> folders = Files.list(goldenRoot())) {
            List<String> versions = folders.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted()
                    .toList();
            assertThat(versions).as("golden savepoints in src/test/resources/golden").isNotEmpty();
            return versions.stream();
        }
    }

    @ParameterizedTest(name = "savepoint of {0}")
    @MethodSource("versions")
    void aSavepointOfAnEarlierVersionRestoresSourcePositionsAndKeyedState(String version) throws Exception {
        Path golden = dir.resolve("golden");
        GoldenSavepointJob.copyTree(goldenRoot().resolve(version), golden);
        Path savepoint;
        try (Stream<Path> files = Files.list(golden)) {
            savepoint = files.filter(p -> p.getFileName().toString().startsWith("savepoint-")).findFirst().orElseThrow();
        }
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
        // Keyed state: each key's counts in the restored run go on from the savepoint's value.
        Map<String, Long> savedCounts = new TreeMap<>();
        for (Event event : before) {
            savedCounts.merge(event.key(), event.count(), Math::max);
        }
        Map<String, List<Long>> countsAfter = after.stream().collect(Collectors.groupingBy(Event::key, TreeMap::new,
                Collectors.mapping(Event::count, Collectors.toList())));
        assertThat(countsAfter.keySet()).hasSize(GoldenSavepointJob.KEYS);
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

    private static Path goldenRoot() throws URISyntaxException {
        URL root = GoldenSavepointTest.class.getResource("/golden");
        assertThat(root).as("test resource folder golden/").isNotNull();
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
