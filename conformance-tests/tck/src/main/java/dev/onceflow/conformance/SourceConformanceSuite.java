package dev.onceflow.conformance;

import static org.awaitility.Awaitility.await;

import dev.onceflow.spi.record.Event;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite for a source. A connector author extends it with one method returning a
 * {@link SourceExternalSystem}. The job under test is the source -> throttle -> count-by-key -> the
 * bundled filesystem sink, whose committed files the oracle reads: a source that replays from the
 * wrong position shows up as lost or duplicated ids and wrong counts.
 */
public abstract class SourceConformanceSuite extends ConformanceSuiteBase {

    private static final int BATCHES = 3;

    private SourceExternalSystem system;

    /** The fixture of the source under test. Called once per test class. */
    protected abstract SourceExternalSystem externalSystem();

    @Override
    protected final SourceExternalSystem system() {
        if (system == null) {
            system = externalSystem();
        }
        return system;
    }

    @Override
    protected final String kind() {
        return "source";
    }

    @Override
    protected final Rule replayRule() {
        return Rule.SRC_1;
    }

    @Override
    protected final String connectorIdentifier() {
        return system().sourceIdentifier();
    }

    @Override
    protected JobSpec jobSpec(TestDestination destination, boolean bounded) throws Exception {
        return JobSpec.of(system().sourceIdentifier(), system().sourceOptions(destination, bounded), "filesystem",
                Map.of("path", output(destination).toString()), settings().rowsPerSecond(), destination.workDirectory()).withMode(settings().mode());
    }

    @Override
    protected Map<String, String> prepareInput(TestDestination destination) throws Exception {
        Map<String, String> expected = new LinkedHashMap<>();
        long perBatch = settings().rows() / BATCHES;
        for (int b = 0; b < BATCHES; b++) {
            expected.putAll(write(destination, b * perBatch, perBatch));
        }
        return expected;
    }

    private Map<String, String> write(TestDestination destination, long first, long count) throws Exception {
        List<Event> events = new ArrayList<>();
        Map<String, String> written = new LinkedHashMap<>();
        for (long id = first; id < first + count; id++) {
            Event event = new Event(Long.toString(id), "key-" + (id % KEYS), "payload" + id, 0);
            events.add(event);
            written.put(event.id(), event.key());
        }
        system().writeInput(destination, events);
        return written;
    }

    @Override
    protected List<Event> committed(TestDestination destination) throws Exception {
        return CommittedFiles.read(output(destination));
    }

    @Override
    protected List<String> leftovers(TestDestination destination) throws Exception {
        return CommittedFiles.inProgress(output(destination));
    }

    private static Path output(TestDestination destination) {
        return destination.workDirectory().resolve("output");
    }

    /**
     * SRC-5 with SER-1/SER-2, in process: the reader's snapshot survives its split serializer
     * (equal after a round trip, an unknown version refused with an IOException), and a new reader
     * given the deserialized splits emits exactly the records after the snapshot.
     */
    @Test
    void required_src5_positionsSurviveTheSplitSerializer() throws Exception {
        ConformanceCase c = newCase("required_src5_positionsSurviveTheSplitSerializer", true);
        Map<String, String> expected = expected(c.destination());
        Map<String, Integer> seen = new LinkedHashMap<>();
        String problem = null;
        try (InProcessSource<dev.onceflow.spi.source.SourceSplit> source =
                InProcessSource.create(system().sourceIdentifier(), system().sourceOptions(c.destination(), true))) {
            var serializer = source.source().splitSerializer();
            source.startReader(List.of());
            // Half the input: mid-split for sources whose splits are the suite's three batches.
            source.read(expected.size() / 2, Duration.ofMinutes(1)).forEach(e -> seen.merge(e.id(), 1, Integer::sum));
            List<dev.onceflow.spi.source.SourceSplit> restored = new ArrayList<>();
            for (var split : source.snapshot(1)) {
                byte[] bytes = serializer.serialize(split);
                var back = serializer.deserialize(serializer.version(), bytes);
                if (!back.equals(split) || !java.util.Arrays.equals(serializer.serialize(back), bytes)) {
                    problem = "split " + split.splitId() + " changed in a serializer round trip: " + split + " -> " + back;
                }
                try {
                    serializer.deserialize(serializer.version() + 1, bytes);
                    problem = "bytes tagged with the unknown version " + (serializer.version() + 1) + " were accepted";
                } catch (java.io.IOException expectedFailure) {
                    // rule SER-2: an unknown version fails by name
                }
                restored.add(back);
            }
            source.startReader(restored);
            source.read(Integer.MAX_VALUE, Duration.ofMinutes(1)).forEach(e -> seen.merge(e.id(), 1, Integer::sum));
        }
        // Only delivery is judged here (no keyed step ran): give each key's records counts 1..n.
        List<Event> replayed = new ArrayList<>();
        Map<String, Long> perKey = new LinkedHashMap<>();
        seen.forEach((id, n) -> {
            String key = expected.getOrDefault(id, "?");
            for (int i = 0; i < n; i++) {
                replayed.add(new Event(id, key, "", perKey.merge(key, 1L, Long::sum)));
            }
        });
        Verdict verdict = Verdict.of(expected, replayed, problem == null ? List.of() : List.of(problem));
        boolean passed = verdict.lost().isEmpty() && verdict.duplicated().isEmpty() && verdict.unexpected().isEmpty()
                && problem == null;
        c.recordCheck(Rule.SRC_5, passed);
        if (!passed) {
            throw new AssertionError(c.message(Rule.SRC_5, verdict));
        }
    }

    /**
     * SRC-3: input written while an unbounded job runs (a new split) is read from its start, once,
     * across a stop-with-savepoint and resume.
     */
    @Test
    void required_src3_inputAddedWhileRunningIsReadOnce() throws Exception {
        ConformanceCase c = newCase("required_src3_inputAddedWhileRunningIsReadOnce", false);
        if (!system().discoversInputWhileRunning()) {
            // Not an assumption: an aborted case counts as not run and would withhold the guarantee.
            c.recordNotApplicable(Rule.SRC_3, "the source does not discover input added while it runs");
            return;
        }
        JobProcess job = c.start("latest", JobProcess.Faults.NONE);
        long initial = settings().rows();
        await().atMost(Duration.ofMinutes(2)).until(() -> !committed(c.destination()).isEmpty());
        expected(c.destination()).putAll(write(c.destination(), initial, initial / BATCHES));
        long all = expected(c.destination()).size();
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
                .until(() -> committed(c.destination()).size() >= all || !job.isAlive());
        // The job is unbounded: a stop-with-savepoint ends it with everything read committed.
        savepointWhenRunning(c, job);
        c.assertExactlyOnce(Rule.SRC_3);
    }
}
