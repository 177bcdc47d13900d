package dev.onceflow.connector.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import dev.onceflow.spi.source.SplitEnumerator;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a {@link FileSource} through the SPI the way the runtime does, on the test thread:
 * enumerator first, then readers whose split requests reach the enumerator, assignments handed to
 * readers before each poll, and checkpoints that go through the serializers' bytes.
 */
// The SPI declares close() throws Exception, which -Xlint:try flags for try-with-resources.
@SuppressWarnings("try")
final class SourceHarness implements AutoCloseable {

    /** What a checkpoint holds of the source, as bytes. */
    record Checkpoint(byte[] enumeratorState, List<byte[]> splits) {
    }

    final FileSource<Event> source;
    final TestEnumeratorContext<FileSplit> enumeratorContext;
    final SplitEnumerator<FileSplit, FileEnumeratorState> enumerator;
    final List<SourceReader<Event, FileSplit>> readers = new ArrayList<>();
    final List<Event> output = new ArrayList<>();

    private SourceHarness(FileSource<Event> source, int parallelism, Checkpoint restoreFrom) throws Exception {
        this.source = source;
        this.enumeratorContext = new TestEnumeratorContext<>(parallelism);
        this.enumerator = restoreFrom == null
                ? source.createEnumerator(enumeratorContext)
                : source.restoreEnumerator(enumeratorContext,
                        source.enumeratorStateSerializer().deserialize(1, restoreFrom.enumeratorState()));
        enumerator.start();
        for (int i = 0; i < parallelism; i++) {
            SourceReader<Event, FileSplit> reader = source.createReader(new ReaderContext(i, parallelism));
            if (restoreFrom != null) {
                // Restored splits are spread round robin, as on a rescale.
                List<FileSplit> mine = new ArrayList<>();
                for (int s = i; s < restoreFrom.splits().size(); s += parallelism) {
                    mine.add(source.splitSerializer().deserialize(1, restoreFrom.splits().get(s)));
                }
                reader.addSplits(mine);
            }
            readers.add(reader);
            reader.start();
            enumerator.addReader(i);
        }
    }

    static SourceHarness start(FileSource<Event> source, int parallelism) throws Exception {
        return new SourceHarness(source, parallelism, null);
    }

    static SourceHarness restore(FileSource<Event> source, int parallelism, Checkpoint checkpoint) throws Exception {
        return new SourceHarness(source, parallelism, checkpoint);
    }

    /** Hands out pending assignments, then polls every reader once; returns their statuses. */
    List<InputStatus> pollOnce() throws Exception {
        List<InputStatus> statuses = new ArrayList<>();
        for (int i = 0; i < readers.size(); i++) {
            enumeratorContext.deliverTo(i, readers.get(i));
            statuses.add(readers.get(i).pollNext(output::add));
        }
        return statuses;
    }

    /** Polls until every reader reports end of input. */
    List<Event> runToEnd() throws Exception {
        for (int polls = 0; !pollOnce().stream().allMatch(s -> s == InputStatus.END_OF_INPUT); polls++) {
            assertThat(polls).as("polls before end of input").isLessThan(10_000);
        }
        return output;
    }

    /** Polls until no reader has anything to emit now and no assignment is on its way (continuous sources). */
    List<Event> runUntilIdle() throws Exception {
        for (int polls = 0; pollOnce().contains(InputStatus.MORE_AVAILABLE) || enumeratorContext.hasUndelivered();
                polls++) {
            assertThat(polls).as("polls before idle").isLessThan(10_000);
        }
        return output;
    }

    /** Runs the enumerator's periodic discovery once, as its timer would. */
    void discover() {
        enumeratorContext.periodicActions.forEach(Runnable::run);
    }

    Checkpoint checkpoint(long checkpointId) throws Exception {
        byte[] enumeratorState = source.enumeratorStateSerializer().serialize(enumerator.snapshotState(checkpointId));
        List<byte[]> splits = new ArrayList<>();
        for (SourceReader<Event, FileSplit> reader : readers) {
            for (FileSplit split : reader.snapshotState(checkpointId)) {
                splits.add(source.splitSerializer().serialize(split));
            }
        }
        return new Checkpoint(enumeratorState, splits);
    }

    @Override
    public void close() throws Exception {
        for (SourceReader<Event, FileSplit> reader : readers) {
            reader.close();
        }
        enumerator.close();
    }

    /** Split requests go straight to the enumerator; the test thread plays the coordinator too. */
    private final class ReaderContext implements SourceReaderContext {

        private final int subtaskIndex;
        private final int parallelism;

        ReaderContext(int subtaskIndex, int parallelism) {
            this.subtaskIndex = subtaskIndex;
            this.parallelism = parallelism;
        }

        @Override
        public int subtaskIndex() {
            return subtaskIndex;
        }

        @Override
        public int parallelism() {
            return parallelism;
        }

        @Override
        public void sendSplitRequest() {
            enumerator.handleSplitRequest(subtaskIndex);
        }
    }
}
