package dev.onceflow.conformance;

import static org.awaitility.Awaitility.await;

import dev.onceflow.spi.record.Event;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
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
     * SRC-3: input written while an unbounded job runs (a new split) is read from its start, once,
     * across a stop-with-savepoint and resume.
     */
    @Test
    void required_src3_inputAddedWhileRunningIsReadOnce() throws Exception {
        Assumptions.assumeTrue(system().discoversInputWhileRunning(), "the source does not discover new input");
        ConformanceCase c = newCase("required_src3_inputAddedWhileRunningIsReadOnce", false);
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
