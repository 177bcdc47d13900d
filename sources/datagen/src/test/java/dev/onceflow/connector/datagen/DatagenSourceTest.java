package dev.onceflow.connector.datagen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.onceflow.connector.datagen.DatagenSource.SplitAssignment;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.source.Boundedness;
import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SplitEnumerator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Drives the datagen source through the SPI the way the runtime does, without the runtime. */
class DatagenSourceTest {

    @Test
    void boundedRunEmitsEveryIdExactlyOnceAcrossTwoReaders() throws Exception {
        for (SplitAssignment assignment : SplitAssignment.values()) {
            // 25,000 rows: on demand, 25 ranges of 4 chunks each.
            DatagenSource source = DatagenSource.builder().rows(25_000).keys(10).splits(4)
                    .splitAssignment(assignment).build();
            Readers readers = Readers.start(source, 2);

            List<Event> output = new ArrayList<>();
            readers.drainToEnd(output);

            assertThat(sortedIds(output)).as(assignment.name()).isEqualTo(LongStream.range(0, 25_000).boxed().toList());
            assertThat(readers.enumerator.snapshotState(1).unassigned()).isEmpty();
        }
    }

    @Test
    void firstIdShiftsEveryIdKeyAndPayload() throws Exception {
        DatagenSource source = DatagenSource.builder().rows(1_000).keys(7).splits(4).firstId(1_000).build();
        List<Event> output = new ArrayList<>();
        Readers.start(source, 2).drainToEnd(output);

        assertThat(sortedIds(output)).isEqualTo(LongStream.range(1_000, 2_000).boxed().toList());
        Event e = output.stream().filter(o -> o.id().equals("1003")).findFirst().orElseThrow();
        assertThat(e).isEqualTo(new EventGenerator(7, 16).eventAt(1_003));
    }

    @Test
    void boundedSourceIsCutIntoChunksThatHoldEverySequenceNumberOnce() {
        // 2,500 rows: two ranges of 1,250; a stride of 3 does not divide them.
        List<DatagenSplit> chunks = DatagenSource.chunks(3, 2_500);

        assertThat(chunks).containsExactly(
                new DatagenSplit(0, 3, 0, 1_250), new DatagenSplit(1, 3, 1, 1_250), new DatagenSplit(2, 3, 2, 1_250),
                new DatagenSplit(0, 3, 1_251, 2_500), new DatagenSplit(1, 3, 1_252, 2_500),
                new DatagenSplit(2, 3, 1_250, 2_500));
        assertThat(chunks).extracting(DatagenSplit::splitId).doesNotHaveDuplicates();
        assertThat(DatagenSource.chunks(4, 20_000_000)).hasSize(4 * (int) DatagenSource.MAX_RANGES);
        // The last range is shorter when the ranges do not divide the rows; near Long.MAX_VALUE
        // the arithmetic must not overflow.
        List<DatagenSplit> longest = DatagenSource.chunks(4, Long.MAX_VALUE);
        assertThat(longest).hasSize(4 * (int) DatagenSource.MAX_RANGES);
        assertThat(longest.get(longest.size() - 1).end()).isEqualTo(Long.MAX_VALUE);
        // Many splits: fewer ranges, never fewer chunks than splits.
        assertThat(DatagenSource.chunks(10_000, 1_000_000)).hasSize(10_000);
        // A range shorter than the stride leaves the chunks past its end out.
        assertThat(DatagenSource.chunks(4, 3)).containsExactly(
                new DatagenSplit(0, 4, 0, 3), new DatagenSplit(1, 4, 1, 3), new DatagenSplit(2, 4, 2, 3));
    }

    @Test
    void onDemandAReaderThatRunsFasterTakesMoreChunksAndBothEndTogether() throws Exception {
        // 200,000 rows in 64 ranges of 3,125, 2 chunks each: 128 chunks of 1,562 or 1,563 rows.
        UnevenRun run = UnevenRun.of(SplitAssignment.ON_DEMAND);

        // 3/4 of the rows go to the reader polled 3 times as often, and the finish is a chunk
        // apart: at most 2 chunks' worth of polls of the slow reader after the fast one ended.
        assertThat(run.fast.size()).isBetween(145_000, 155_000);
        int pollsPerChunk = (1_563 + DatagenReader.MAX_RECORDS_PER_POLL - 1) / DatagenReader.MAX_RECORDS_PER_POLL;
        assertThat(run.slowPollsAfterFastEnded).isLessThanOrEqualTo(2 * pollsPerChunk);
    }

    @Test
    void staticGivesEachReaderAFixedShareHoweverFastItRuns() throws Exception {
        UnevenRun run = UnevenRun.of(SplitAssignment.STATIC);

        assertThat(run.fast).hasSize(100_000);
        // The slow reader still has a third of its half to read when the fast one ends.
        assertThat(run.slowPollsAfterFastEnded).isGreaterThan(600);
    }

    /**
     * One reader that came up before its enumerator and found nothing to read, then the
     * enumerator, which announces it and delivers what it assigned.
     */
    private record LateEnumerator(SourceReader<Event, DatagenSplit> reader, TestReaderContext readerContext,
            SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator, TestEnumeratorContext<DatagenSplit> context) {

        static LateEnumerator start(DatagenSource source) throws Exception {
            TestEnumeratorContext<DatagenSplit> context = new TestEnumeratorContext<>(1);
            TestReaderContext readerContext = new TestReaderContext(0, 1);
            SourceReader<Event, DatagenSplit> reader = source.createReader(readerContext);
            reader.start();
            assertThat(reader.pollNext(e -> { })).isEqualTo(InputStatus.NOTHING_AVAILABLE);
            SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator = source.createEnumerator(context);
            enumerator.start();
            enumerator.addReader(0);
            context.deliverTo(0, reader);
            return new LateEnumerator(reader, readerContext, enumerator, context);
        }
    }

    /** Two readers of 200,000 rows, reader 0 polled three times for each poll of reader 1. */
    private record UnevenRun(List<Event> fast, int slowPollsAfterFastEnded) {

        static UnevenRun of(SplitAssignment assignment) throws Exception {
            Readers readers = Readers.start(DatagenSource.builder().rows(200_000).splits(2)
                    .splitAssignment(assignment).build(), 2);
            List<Event> fast = new ArrayList<>();
            List<Event> slow = new ArrayList<>();
            boolean fastEnded = false;
            boolean slowEnded = false;
            int slowPollsAfterFastEnded = 0;
            for (int round = 0; !(fastEnded && slowEnded); round++) {
                assertThat(round).as("rounds before end of input").isLessThan(10_000);
                for (int i = 0; i < 3 && !fastEnded; i++) {
                    fastEnded = readers.poll(0, fast) == InputStatus.END_OF_INPUT;
                }
                if (!slowEnded) {
                    slowEnded = readers.poll(1, slow) == InputStatus.END_OF_INPUT;
                    slowPollsAfterFastEnded += fastEnded ? 1 : 0;
                }
            }
            List<Event> both = new ArrayList<>(fast);
            both.addAll(slow);
            assertThat(sortedIds(both)).as(assignment.name()).isEqualTo(LongStream.range(0, 200_000).boxed().toList());
            return new UnevenRun(fast, slowPollsAfterFastEnded);
        }
    }

    @Test
    void eventsAreAPureFunctionOfTheSequenceNumber() throws Exception {
        DatagenSource source = DatagenSource.builder().rows(20).keys(3).payloadSize(12).splits(1).build();
        List<Event> first = runBounded(source, 1);
        List<Event> second = runBounded(source, 1);

        assertThat(first).hasSize(20).isEqualTo(second);
        Event seven = first.get(7);
        assertThat(seven.id()).isEqualTo("7");
        assertThat(seven.key()).isEqualTo("key-1");
        assertThat(seven.count()).isZero();
        assertThat(seven.payload()).hasSize(12).matches("[a-zA-Z0-9]{12}");
        assertThat(first.get(8).payload()).isNotEqualTo(seven.payload());
    }

    @Test
    void restoreFromReaderSnapshotContinuesExactlyAfterIt() throws Exception {
        for (SplitAssignment assignment : SplitAssignment.values()) {
            restoreContinuesExactlyAfterTheSnapshot(DatagenSource.builder().rows(1000).splits(4)
                    .splitAssignment(assignment).build());
        }
    }

    private static void restoreContinuesExactlyAfterTheSnapshot(DatagenSource source) throws Exception {
        Readers readers = Readers.start(source, 2);

        List<Event> beforeCheckpoint = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            readers.poll(0, beforeCheckpoint);
        }
        readers.poll(1, beforeCheckpoint);
        // The checkpoint goes through bytes, as it would through a checkpoint file.
        byte[] enumeratorState = serialize(source.enumeratorStateSerializer(), readers.enumerator.snapshotState(7));
        List<byte[]> readerState = new ArrayList<>();
        for (SourceReader<Event, DatagenSplit> reader : readers.readers) {
            for (DatagenSplit split : reader.snapshotState(7)) {
                readerState.add(serialize(source.splitSerializer(), split));
            }
        }
        // Records emitted after the barrier are lost with the crash and must be replayed.
        readers.poll(0, new ArrayList<>());
        readers.poll(1, new ArrayList<>());

        // Restore at a different parallelism: all restored splits go to one reader.
        TestEnumeratorContext<DatagenSplit> restoredContext = new TestEnumeratorContext<>(1);
        SplitEnumerator<DatagenSplit, DatagenEnumeratorState> restored = source.restoreEnumerator(restoredContext,
                source.enumeratorStateSerializer().deserialize(1, enumeratorState));
        List<DatagenSplit> splits = new ArrayList<>();
        for (byte[] bytes : readerState) {
            splits.add(source.splitSerializer().deserialize(1, bytes));
        }
        Readers restoredReaders = Readers.restore(source, restored, restoredContext, List.of(splits));
        List<Event> afterRestore = new ArrayList<>();
        restoredReaders.drainToEnd(afterRestore);

        assertThat(beforeCheckpoint).hasSize(400);
        List<String> union = new ArrayList<>(ids(beforeCheckpoint));
        union.addAll(ids(afterRestore));
        assertThat(union).containsExactlyInAnyOrderElementsOf(range(0, 1000));
    }

    @Test
    void enumeratorStateKeepsSplitsOfReadersThatHaveNotComeUp() throws Exception {
        SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator =
                firstOfTwoReadersCameUp(DatagenSource.builder().rows(100).splits(4).build());

        assertThat(enumerator.snapshotState(1).unassigned()).containsExactly(
                new DatagenSplit(1, 4, 1, 100), new DatagenSplit(3, 4, 3, 100));
    }

    @Test
    void enumeratorStateKeepsTheChunksNotHandedOutYet() throws Exception {
        SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator = firstOfTwoReadersCameUp(
                DatagenSource.builder().rows(100).splits(4).splitAssignment(SplitAssignment.ON_DEMAND).build());

        assertThat(enumerator.snapshotState(1).unassigned()).containsExactly(
                new DatagenSplit(2, 4, 2, 100), new DatagenSplit(3, 4, 3, 100));
        enumerator.handleSplitRequest(0);
        assertThat(enumerator.snapshotState(2).unassigned()).containsExactly(new DatagenSplit(3, 4, 3, 100));
    }

    @Test
    void onDemandRestoresAStaticCheckpoint() throws Exception {
        // With static assignment each reader took its full-length strided splits when it came up,
        // so a checkpoint held them in the readers' state and nothing in the enumerator's.
        DatagenSource source = DatagenSource.builder().rows(1000).splits(4).splitAssignment(SplitAssignment.ON_DEMAND)
                .build();
        TestEnumeratorContext<DatagenSplit> context = new TestEnumeratorContext<>(2);
        SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator =
                source.restoreEnumerator(context, new DatagenEnumeratorState(List.of()));
        Readers readers = Readers.restore(source, enumerator, context, List.of(
                List.of(new DatagenSplit(0, 4, 400, 1000), new DatagenSplit(2, 4, 402, 1000)),
                List.of(new DatagenSplit(1, 4, 1, 1000), new DatagenSplit(3, 4, 3, 1000))));

        List<Event> output = new ArrayList<>();
        readers.drainToEnd(output);

        List<String> expected = new ArrayList<>(range(1, 1000).stream()
                .filter(id -> Long.parseLong(id) % 2 == 1 || Long.parseLong(id) >= 400).toList());
        assertThat(ids(output)).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aChunkAssignedBeforeTheEnumeratorSnapshotIsInTheReadersSnapshot() throws Exception {
        // 4,000 rows, 2 splits: 4 ranges of 1,000, 8 chunks of 500; each reader starts with 2.
        DatagenSource source = DatagenSource.builder().rows(4_000).splits(2).splitAssignment(SplitAssignment.ON_DEMAND)
                .build();
        Readers readers = Readers.start(source, 2);
        List<Event> beforeCheckpoint = new ArrayList<>();
        for (int poll = 0; poll < 10; poll++) {
            readers.readers.get(0).pollNext(beforeCheckpoint::add);
        }
        assertThat(readers.readerContexts.get(0).takeRequests()).as("both first chunks used up").isEqualTo(2);

        // The coordinator answers the requests, then takes the checkpoint: the answers are no
        // longer in the enumerator's state. They reach the reader's mailbox before the
        // checkpoint's trigger, so the reader's snapshot must hold them.
        readers.enumerator.handleSplitRequest(0);
        readers.enumerator.handleSplitRequest(0);
        DatagenEnumeratorState enumeratorState = readers.enumerator.snapshotState(3);
        readers.context.deliverTo(0, readers.readers.get(0));
        List<List<DatagenSplit>> readerStates = List.of(
                new ArrayList<>(readers.readers.get(0).snapshotState(3)), readers.readers.get(1).snapshotState(3));
        assertThat(enumeratorState.unassigned()).hasSize(2);
        assertThat(readerStates.get(0)).hasSize(2);

        List<DatagenSplit> restoredSplits = new ArrayList<>(readerStates.get(0));
        restoredSplits.addAll(readerStates.get(1));
        TestEnumeratorContext<DatagenSplit> restoredContext = new TestEnumeratorContext<>(1);
        Readers restored = Readers.restore(source, source.restoreEnumerator(restoredContext, enumeratorState),
                restoredContext, List.of(restoredSplits));
        List<Event> afterRestore = new ArrayList<>();
        restored.drainToEnd(afterRestore);

        assertThat(beforeCheckpoint).hasSize(1_000);
        List<Event> both = new ArrayList<>(beforeCheckpoint);
        both.addAll(afterRestore);
        assertThat(sortedIds(both)).isEqualTo(LongStream.range(0, 4_000).boxed().toList());
    }

    @Test
    void onDemandSkipsExhaustedSplitsOfAStaticCheckpoint() throws Exception {
        // 3 rows in 8 static splits: a checkpoint taken before every reader came up holds splits
        // that start past the end. Handed out, a reader would drop them and never ask again.
        DatagenSource source = DatagenSource.builder().rows(3).splits(8).splitAssignment(SplitAssignment.ON_DEMAND)
                .build();
        TestEnumeratorContext<DatagenSplit> context = new TestEnumeratorContext<>(1);
        SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator = source.restoreEnumerator(context,
                new DatagenEnumeratorState(List.of(DatagenSplit.initial(4, 8, 3), DatagenSplit.initial(5, 8, 3),
                        DatagenSplit.initial(2, 8, 3))));
        Readers readers = Readers.restore(source, enumerator, context, List.of(List.of()));

        List<Event> output = new ArrayList<>();
        readers.drainToEnd(output);

        assertThat(ids(output)).containsExactly("2");
    }

    @Test
    void unboundedSourceNeverEndsAndSnapshotsItsPositions() throws Exception {
        DatagenSource source = DatagenSource.builder().splits(2).build();
        assertThat(source.boundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
        Readers readers = Readers.start(source, 1);

        List<Event> output = new ArrayList<>();
        for (int poll = 0; poll < 5; poll++) {
            assertThat(readers.poll(0, output)).isEqualTo(InputStatus.MORE_AVAILABLE);
        }

        assertThat(ids(output)).containsExactlyInAnyOrderElementsOf(range(0, 500));
        assertThat(readers.readerContexts.get(0).takeRequests()).isZero();
        assertThat(readers.readers.get(0).snapshotState(1)).containsExactlyInAnyOrder(
                new DatagenSplit(0, 2, 500, Long.MAX_VALUE), new DatagenSplit(1, 2, 501, Long.MAX_VALUE));
    }

    @Test
    void pollEmitsASmallBatch() throws Exception {
        DatagenSource source = DatagenSource.builder().rows(1000).splits(1).build();
        SourceReader<Event, DatagenSplit> reader = source.createReader(new TestReaderContext(0, 1));
        reader.addSplits(List.of(DatagenSplit.initial(0, 1, 1000)));
        reader.start();

        List<Event> output = new ArrayList<>();
        assertThat(reader.pollNext(output::add)).isEqualTo(InputStatus.MORE_AVAILABLE);

        assertThat(output).hasSize(DatagenReader.MAX_RECORDS_PER_POLL);
    }

    @Test
    void readerWithoutSplitsWaitsUntilToldNoMoreWillCome() throws Exception {
        LateEnumerator late = LateEnumerator.start(DatagenSource.builder().rows(3).splits(4).build());
        List<Event> output = new ArrayList<>();
        // Split 3 starts past the end (3 rows, 4 splits) and must simply be empty.
        assertThat(late.reader.pollNext(output::add)).isEqualTo(InputStatus.END_OF_INPUT);
        assertThat(ids(output)).containsExactlyInAnyOrder("0", "1", "2");
    }

    @Test
    void onDemandReaderAsksForAChunkEachTimeItUsedOneUp() throws Exception {
        LateEnumerator late = LateEnumerator.start(DatagenSource.builder().rows(3).splits(4)
                .splitAssignment(SplitAssignment.ON_DEMAND).build());
        SourceReader<Event, DatagenSplit> reader = late.reader;
        TestReaderContext readerContext = late.readerContext;
        SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator = late.enumerator;
        TestEnumeratorContext<DatagenSplit> context = late.context;
        List<Event> output = new ArrayList<>();
        // Three chunks (split 3 starts past the end of 3 rows); the reader got two and must wait.
        assertThat(reader.pollNext(output::add)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(ids(output)).containsExactly("0", "1");
        assertThat(readerContext.takeRequests()).isEqualTo(2);
        enumerator.handleSplitRequest(0);
        enumerator.handleSplitRequest(0);
        context.deliverTo(0, reader);
        assertThat(reader.pollNext(output::add)).isEqualTo(InputStatus.END_OF_INPUT);
        assertThat(ids(output)).containsExactly("0", "1", "2");
        assertThat(readerContext.takeRequests()).as("requests after the end was signalled").isZero();
    }

    @Test
    void onDemandNeedsABoundedSource() {
        assertThatThrownBy(() -> DatagenSource.builder().splitAssignment(SplitAssignment.ON_DEMAND).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("split-assignment on-demand needs rows");
    }

    @Test
    void rateLimitHoldsReadersBackWithoutBlocking() throws Exception {
        // 40 rows per second over 2 readers: 20 per second for the one reader driven here.
        DatagenSource source = DatagenSource.builder().rowsPerSecond(40).splits(2).build();
        SourceReader<Event, DatagenSplit> reader = source.createReader(new TestReaderContext(0, 2));
        reader.addSplits(List.of(DatagenSplit.initial(0, 2, Long.MAX_VALUE)));
        long startNanos = System.nanoTime();
        reader.start();
        List<Event> output = new ArrayList<>();

        assertThat(reader.pollNext(output::add)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(output).hasSizeLessThan(DatagenReader.MAX_RECORDS_PER_POLL);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(() -> {
            reader.pollNext(output::add);
            return output.size() >= 10;
        });

        // 10 records at 20 per second (the first is free) cannot be done in under 450 ms.
        assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).isGreaterThanOrEqualTo(Duration.ofMillis(450));
        assertThat(ids(output.subList(0, 10))).containsExactly("0", "2", "4", "6", "8", "10", "12", "14", "16", "18");
    }

    /** A fresh enumerator for 2 readers, after reader 0 came up and reader 1 not yet. */
    private static SplitEnumerator<DatagenSplit, DatagenEnumeratorState> firstOfTwoReadersCameUp(DatagenSource source)
            throws Exception {
        SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator =
                source.createEnumerator(new TestEnumeratorContext<>(2));
        enumerator.start();
        enumerator.addReader(0);
        return enumerator;
    }

    private static List<Event> runBounded(DatagenSource source, int parallelism) throws Exception {
        List<Event> output = new ArrayList<>();
        Readers.start(source, parallelism)
                .drainToEnd(output);
        return output;
    }

    /**
     * Readers with their enumerator, driven as parallel tasks would be: after each poll, the
     * reader's split requests go to the enumerator and its answers to the reader, as the runtime
     * delivers them through the task's mailbox between polls.
     */
    private static final class Readers {

        final SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator;
        final TestEnumeratorContext<DatagenSplit> context;
        final List<SourceReader<Event, DatagenSplit>> readers = new ArrayList<>();
        final List<TestReaderContext> readerContexts = new ArrayList<>();

        private Readers(SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator,
                TestEnumeratorContext<DatagenSplit> context) {
            this.enumerator = enumerator;
            this.context = context;
        }

        /** A fresh start: every reader comes up empty and is announced to the enumerator. */
        static Readers start(DatagenSource source, int parallelism) throws Exception {
            TestEnumeratorContext<DatagenSplit> context = new TestEnumeratorContext<>(parallelism);
            List<List<DatagenSplit>> none = new ArrayList<>();
            for (int i = 0; i < parallelism; i++) {
                none.add(List.of());
            }
            return restore(source, source.createEnumerator(context), context, none);
        }

        /** Readers restored with the given splits each, then announced, as after a restore. */
        static Readers restore(DatagenSource source, SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator,
                TestEnumeratorContext<DatagenSplit> context, List<List<DatagenSplit>> restoredSplits)
                throws Exception {
            int parallelism = restoredSplits.size();
            Readers readers = new Readers(enumerator, context);
            enumerator.start();
            for (int i = 0; i < parallelism; i++) {
                TestReaderContext readerContext = new TestReaderContext(i, parallelism);
                SourceReader<Event, DatagenSplit> reader = source.createReader(readerContext);
                reader.addSplits(restoredSplits.get(i));
                reader.start();
                readers.readers.add(reader);
                readers.readerContexts.add(readerContext);
            }
            for (int i = 0; i < parallelism; i++) {
                enumerator.addReader(i);
                readers.context.deliverTo(i, readers.readers.get(i));
            }
            return readers;
        }

        /** Polls reader {@code i} once, then passes on its requests and the enumerator's answers. */
        InputStatus poll(int i, List<Event> output) throws Exception {
            InputStatus status = readers.get(i).pollNext(output::add);
            for (int requests = readerContexts.get(i).takeRequests(); requests > 0; requests--) {
                enumerator.handleSplitRequest(i);
            }
            context.deliverTo(i, readers.get(i));
            return status;
        }

        /** Polls the readers in turn until all report end of input. */
        void drainToEnd(List<Event> output) throws Exception {
            List<Integer> running = new ArrayList<>();
            for (int i = 0; i < readers.size(); i++) {
                running.add(i);
            }
            for (int polls = 0; !running.isEmpty(); polls++) {
                assertThat(polls).as("polls before end of input").isLessThan(10_000);
                List<Integer> ended = new ArrayList<>();
                for (int i : running) {
                    if (poll(i, output) == InputStatus.END_OF_INPUT) {
                        ended.add(i);
                    }
                }
                running.removeAll(ended);
            }
        }
    }

    private static <T> byte[] serialize(SimpleVersionedSerializer<T> serializer, T value) throws Exception {
        assertThat(serializer.version()).isEqualTo(1);
        return serializer.serialize(value);
    }

    /** Ids as numbers, sorted: compared whole, since AssertJ's any-order comparison is quadratic. */
    private static List<Long> sortedIds(List<Event> events) {
        return events.stream().map(event -> Long.parseLong(event.id())).sorted().toList();
    }

    private static List<String> ids(List<Event> events) {
        return events.stream().map(Event::id).toList();
    }

    private static List<String> range(long from, long to) {
        return LongStream.range(from, to).mapToObj(Long::toString).toList();
    }
}
