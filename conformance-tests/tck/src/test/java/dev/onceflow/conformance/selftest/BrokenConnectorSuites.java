package dev.onceflow.conformance.selftest;

import dev.onceflow.conformance.CommittedFiles;
import dev.onceflow.conformance.SinkConformanceSuite;
import dev.onceflow.conformance.SinkExternalSystem;
import dev.onceflow.conformance.SourceConformanceSuite;
import dev.onceflow.conformance.SourceExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The suite as a connector author would run it, once per broken connector. The names do not end
 * in {@code Test}: surefire must not run these (they fail by design); {@link
 * SuiteCatchesBrokenConnectorsTest} runs one selected case of each and checks that it fails.
 */
final class BrokenConnectorSuites {

    private BrokenConnectorSuites() {
    }

    static final class CommitAtPreCommitSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new LocalDirectorySink(CommitAtPreCommitSinkFactory.IDENTIFIER);
        }
    }

    static final class NonIdempotentCommitSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new LocalDirectorySink(NonIdempotentCommitSinkFactory.IDENTIFIER);
        }
    }

    static final class NoAbortLingeringSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new LocalDirectorySink(NoAbortLingeringSinkFactory.IDENTIFIER);
        }
    }

    static final class LockedByLingeringSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new LocalDirectorySink(LockedByLingeringSinkFactory.IDENTIFIER);
        }
    }

    static final class DropsFailedCommitSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new LocalDirectorySink(DropsFailedCommitSinkFactory.IDENTIFIER);
        }
    }

    static final class SwallowsCommitFailureSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new LocalDirectorySink(SwallowsCommitFailureSinkFactory.IDENTIFIER);
        }
    }

    static final class ForgetsFormerSubtasksSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new LocalDirectorySink(ForgetsFormerSubtasksSinkFactory.IDENTIFIER);
        }
    }

    static final class MarksBeforeSendSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new LocalDirectorySink(MarksBeforeSendSinkFactory.IDENTIFIER);
        }
    }

    static final class KeepsEarlierRunsMarkersSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new LocalDirectorySink(MarksBeforeSendSinkFactory.KeepsEarlierRunsMarkers.IDENTIFIER);
        }
    }

    /** A sink that appends and says so: an AtLeastOnceSink. */
    static final class AppendingAtLeastOnceSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new LocalDirectorySink(AppendingSinkFactory.AtLeastOnce.IDENTIFIER);
        }
    }

    /** The same appending sink declared an IdempotentSink. */
    static final class ClaimsIdempotentSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new LocalDirectorySink(AppendingSinkFactory.ClaimsIdempotent.IDENTIFIER);
        }
    }

    /** The correct filesystem sink, for the run in AT_LEAST_ONCE mode. */
    static final class FileSystemSinkSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new LocalDirectorySink("filesystem");
        }
    }

    /** The correct filesystem sink behind a fixture that cannot read what was committed: no case reaches a verdict. */
    static final class UnreadableOutputSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new BrokenFixture(BrokenFixture.Step.READ_COMMITTED);
        }
    }

    /** A fixture that cannot start its system: no case can run. */
    static final class UnstartableSuite extends SinkConformanceSuite {
        @Override
        protected SinkExternalSystem externalSystem() {
            return new BrokenFixture(BrokenFixture.Step.START);
        }
    }

    /** The correct file source, behind a fixture that says it does not discover input while running. */
    static final class FileSourceWithoutDiscoverySuite extends SourceConformanceSuite {
        @Override
        protected SourceExternalSystem externalSystem() {
            return new InputDirectory("file", false);
        }
    }

    static final class OffByOneFileSourceSuite extends SourceConformanceSuite {
        @Override
        protected SourceExternalSystem externalSystem() {
            return new InputDirectory(OffByOneFileSourceFactory.IDENTIFIER);
        }
    }

    /** The filesystem sink's fixture, for any sink identifier that takes its options. */
    record LocalDirectorySink(String sinkIdentifier) implements SinkExternalSystem {

        @Override
        public void start() {
        }

        @Override
        public void close() {
        }

        @Override
        public Map<String, Object> sinkOptions(TestDestination destination) {
            return Map.of("path", output(destination).toString());
        }

        @Override
        public List<Event> readCommitted(TestDestination destination) throws Exception {
            return CommittedFiles.read(output(destination));
        }

        @Override
        public List<String> leftovers(TestDestination destination) throws Exception {
            return CommittedFiles.inProgress(output(destination));
        }

        private static Path output(TestDestination destination) {
            return destination.workDirectory().resolve("output");
        }
    }

    /**
     * The filesystem sink's fixture, broken at one step: an exception of the fixture, which says
     * nothing about the connector, so the case it breaks reaches no verdict.
     */
    record BrokenFixture(Step broken) implements SinkExternalSystem {

        enum Step { START, READ_COMMITTED }

        private static final LocalDirectorySink FILESYSTEM = new LocalDirectorySink("filesystem");

        /** What the fixture throws, as the report shows it. */
        String failure() {
            return "IllegalStateException: the fixture broke at " + broken;
        }

        @Override
        public void start() {
            breakAt(Step.START);
        }

        @Override
        public void close() {
        }

        @Override
        public String variant() {
            return "broken-" + broken.name().toLowerCase(java.util.Locale.ROOT);
        }

        @Override
        public String sinkIdentifier() {
            return FILESYSTEM.sinkIdentifier();
        }

        @Override
        public Map<String, Object> sinkOptions(TestDestination destination) {
            return FILESYSTEM.sinkOptions(destination);
        }

        @Override
        public List<Event> readCommitted(TestDestination destination) throws Exception {
            breakAt(Step.READ_COMMITTED);
            return FILESYSTEM.readCommitted(destination);
        }

        @Override
        public List<String> leftovers(TestDestination destination) throws Exception {
            return FILESYSTEM.leftovers(destination);
        }

        private void breakAt(Step step) {
            if (step == broken) {
                throw new IllegalStateException("the fixture broke at " + step);
            }
        }
    }

    /** The file source's fixture, for any source identifier that takes its options: a file per batch. */
    static final class InputDirectory implements SourceExternalSystem {

        private final String sourceIdentifier;
        private final boolean discovers;
        private final Map<String, Integer> files = new HashMap<>();

        InputDirectory(String sourceIdentifier) {
            this(sourceIdentifier, true);
        }

        InputDirectory(String sourceIdentifier, boolean discovers) {
            this.sourceIdentifier = sourceIdentifier;
            this.discovers = discovers;
        }

        @Override
        public String variant() {
            return discovers ? "" : "no-discovery";
        }

        @Override
        public boolean discoversInputWhileRunning() {
            return discovers;
        }

        @Override
        public void start() {
        }

        @Override
        public void close() {
        }

        @Override
        public String sourceIdentifier() {
            return sourceIdentifier;
        }

        @Override
        public Map<String, Object> sourceOptions(TestDestination destination, boolean bounded) {
            return bounded ? Map.of("path", input(destination).toString())
                    : Map.of("path", input(destination).toString(), "discovery-interval", "200ms");
        }

        @Override
        public void writeInput(TestDestination destination, List<Event> events) throws Exception {
            Path dir = Files.createDirectories(input(destination));
            int n = files.merge(destination.name(), 1, Integer::sum);
            StringBuilder text = new StringBuilder();
            for (Event event : events) {
                text.append(EventFormat.toLine(event)).append('\n');
            }
            // Written hidden, then renamed: the source must never see a half-written file.
            Path temp = dir.resolve(".batch-" + n + ".tmp");
            Files.writeString(temp, text, StandardCharsets.UTF_8);
            Files.move(temp, dir.resolve("batch-" + n + ".txt"), StandardCopyOption.ATOMIC_MOVE);
        }

        private static Path input(TestDestination destination) {
            return destination.workDirectory().resolve("input");
        }
    }
}
