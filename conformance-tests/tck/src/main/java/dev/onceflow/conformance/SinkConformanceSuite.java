package dev.onceflow.conformance;

import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.spi.record.Event;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite for a sink. A connector author extends it with one method:
 *
 * <pre>{@code
 * class MySinkConformanceTest extends SinkConformanceSuite {
 *     @Override
 *     protected SinkExternalSystem externalSystem() {
 *         return new MyFixture(); // starts the system, configures the sink, reads committed data
 *     }
 * }
 * }</pre>
 *
 * <p>The job under test is datagen (ids {@code 0..rows-1}) -> throttle -> count-by-key -> the sink,
 * run in child JVMs that the suite crashes.
 */
public abstract class SinkConformanceSuite extends ConformanceSuiteBase {

    private SinkExternalSystem system;
    private SinkContract contract;

    /** The fixture of the sink under test. Called once per test class. */
    protected abstract SinkExternalSystem externalSystem();

    @Override
    protected final SinkExternalSystem system() {
        if (system == null) {
            system = externalSystem();
        }
        return system;
    }

    @Override
    protected final String kind() {
        return "sink";
    }

    @Override
    protected final Rule replayRule() {
        return Rule.EO_1;
    }

    @Override
    protected final String connectorIdentifier() {
        return system().sinkIdentifier();
    }

    /**
     * The contract of the sink under test, read from the sink its factory builds for the first
     * case's options; known once a case has started.
     */
    @Override
    protected final Optional<SinkContract> sinkContract() {
        return Optional.ofNullable(contract);
    }

    @Override
    protected JobSpec jobSpec(TestDestination destination, boolean bounded) throws Exception {
        Map<String, Object> sinkOptions = system().sinkOptions(destination);
        if (contract == null) {
            contract = SinkContract.of(system().sinkIdentifier(), sinkOptions);
        }
        // BE-1: a sink that promises nothing gives no case anything to check; no guarantee is claimed.
        Assumptions.assumeFalse(contract == SinkContract.BEST_EFFORT, "sink '" + system().sinkIdentifier()
                + "' is a BestEffortSink: it promises nothing on a crash, so the suite checks nothing");
        Map<String, Object> source = new LinkedHashMap<>();
        source.put("rows", settings().rows());
        source.put("keys", KEYS);
        source.put("splits", 4);
        source.put("payload-size", 8);
        return JobSpec.of("datagen", source, system().sinkIdentifier(), sinkOptions,
                settings().rowsPerSecond(), destination.workDirectory()).withMode(settings().mode());
    }

    @Override
    protected Map<String, String> prepareInput(TestDestination destination) {
        return Verdict.datagenInput(settings().rows(), KEYS);
    }

    @Override
    protected List<Event> committed(TestDestination destination) throws Exception {
        return system().readCommitted(destination);
    }

    @Override
    protected List<String> leftovers(TestDestination destination) throws Exception {
        return system().leftovers(destination);
    }

    /**
     * 2PC-1: the JVM halts right after the first pre-commit, before any checkpoint completed, so
     * a committed reader must see nothing at all.
     */
    @Test
    void required_2pc1_nothingVisibleBeforeTheCheckpointCompletes() throws Exception {
        ConformanceCase c = newCase("required_2pc1_nothingVisibleBeforeTheCheckpointCompletes", true);
        if (!c.crashAt(FaultPoints.SINK_AFTER_PRECOMMIT + "@1")) {
            c.recordCheck(Rule.TWO_PC_1, true); // not a two-phase commit sink
            return;
        }
        List<Event> visible = committed(c.destination());
        c.recordCheck(Rule.TWO_PC_1, visible.isEmpty());
        if (!visible.isEmpty()) {
            throw new AssertionError(c.message(Rule.TWO_PC_1, c.verdict()) + "\n  visible before any checkpoint completed: "
                    + visible.size() + " records, first " + visible.get(0));
        }
        c.finish();
        c.assertExactlyOnce(Rule.EO_1);
    }

    /**
     * 2PC-7: the JVM stalls, then halts, after the sinks pre-committed checkpoint n and began (and
     * wrote into) the transaction for n+1, before n completes. Restoring n-1 knows n's transaction
     * but not n+1's: only abortLingering can clean that one up.
     */
    @Test
    void required_2pc7_lingeringTransactionsAreAborted() throws Exception {
        ConformanceCase c = newCase("required_2pc7_lingeringTransactionsAreAborted", true);
        c.crashAt(FaultPoints.COORDINATOR_BEFORE_METADATA + "@3", FaultPoints.COORDINATOR_BEFORE_METADATA + "@3=300");
        c.finish();
        c.assertExactlyOnce(Rule.TWO_PC_7);
    }
}
