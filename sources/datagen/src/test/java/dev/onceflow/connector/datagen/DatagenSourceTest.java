package dev.onceflow.connector.datagen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
        DatagenSource source = DatagenSource.builder().rows(1000).keys(10).splits(4).build();
        TestEnumeratorContext<DatagenSplit> enumeratorContext = new TestEnumeratorContext<>(2);
        SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator = source.createEnumerator(enumeratorContext);
        List<SourceReader<Event, DatagenSplit>> readers = startReaders(source, enumerator, enumeratorContext, 2);

        List<Event> output = new ArrayList<>();
        drainToEnd(readers, output);

        assertThat(ids(output)).containsExactlyInAnyOrderElementsOf(range(0, 1000));
        assertThat(enumerator.snapshotState(1).unassigned()).isEmpty();
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
        DatagenSource source = DatagenSource.builder().rows(1000).splits(4).build();
        TestEnumeratorContext<DatagenSplit> enumeratorContext = new TestEnumeratorContext<>(2);
        SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator = source.createEnumerator(enumeratorContext);
        List<SourceReader<Event, DatagenSplit>> readers = startReaders(source, enumerator, enumeratorContext, 2);

        List<Event> beforeCheckpoint = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            readers.get(0).pollNext(beforeCheckpoint::add);
        }
        readers.get(1).pollNext(beforeCheckpoint::add);
        // The checkpoint goes through bytes, as it would through a checkpoint file.
        byte[] enumeratorState = serialize(source.enumeratorStateSerializer(), enumerator.snapshotState(7));
        List<byte[]> readerState = new ArrayList<>();
        for (SourceReader<Event, DatagenSplit> reader : readers) {
            for (DatagenSplit split : reader.snapshotState(7)) {
                readerState.add(serialize(source.splitSerializer(), split));
            }
        }
        // Records emitted after the barrier are lost with the crash and must be replayed.
        readers.get(0).pollNext(e -> { });
        readers.get(1).pollNext(e -> { });

        // Restore at a different parallelism: all restored splits go to one reader.
        TestEnumeratorContext<DatagenSplit> restoredContext = new TestEnumeratorContext<>(1);
        SplitEnumerator<DatagenSplit, DatagenEnumeratorState> restored = source.restoreEnumerator(restoredContext,
                source.enumeratorStateSerializer().deserialize(1, enumeratorState));
        SourceReader<Event, DatagenSplit> reader = source.createReader(new TestReaderContext(0, 1));
        List<DatagenSplit> splits = new ArrayList<>();
        for (byte[] bytes : readerState) {
            splits.add(source.splitSerializer().deserialize(1, bytes));
        }
        reader.addSplits(splits);
        reader.start();
        restored.start();
        restored.addReader(0);
        restoredContext.deliverTo(0, reader);
        List<Event> afterRestore = new ArrayList<>();
        drainToEnd(List.of(reader), afterRestore);

        assertThat(beforeCheckpoint).hasSize(400);
        List<String> union = new ArrayList<>(ids(beforeCheckpoint));
        union.addAll(ids(afterRestore));
        assertThat(union).containsExactlyInAnyOrderElementsOf(range(0, 1000));
    }

    @Test
    void enumeratorStateKeepsSplitsOfReadersThatHaveNotComeUp() throws Exception {
        DatagenSource source = DatagenSource.builder().rows(100).splits(4).build();
        TestEnumeratorContext<DatagenSplit> context = new TestEnumeratorContext<>(2);
        SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator = source.createEnumerator(context);
        enumerator.start();
        enumerator.addReader(0);

        assertThat(enumerator.snapshotState(1).unassigned()).containsExactly(
                new DatagenSplit(1, 4, 1, 100), new DatagenSplit(3, 4, 3, 100));
    }

    @Test
    void unboundedSourceNeverEndsAndSnapshotsItsPositions() throws Exception {
        DatagenSource source = DatagenSource.builder().splits(2).build();
        assertThat(source.boundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
        TestEnumeratorContext<DatagenSplit> context = new TestEnumeratorContext<>(1);
        SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator = source.createEnumerator(context);
        List<SourceReader<Event, DatagenSplit>> readers = startReaders(source, enumerator, context, 1);

        List<Event> output = new ArrayList<>();
        for (int poll = 0; poll < 5; poll++) {
            assertThat(readers.get(0).pollNext(output::add)).isEqualTo(InputStatus.MORE_AVAILABLE);
        }

        assertThat(ids(output)).containsExactlyInAnyOrderElementsOf(range(0, 500));
        assertThat(readers.get(0).snapshotState(1)).containsExactlyInAnyOrder(
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
        DatagenSource source = DatagenSource.builder().rows(3).splits(4).build();
        TestEnumeratorContext<DatagenSplit> context = new TestEnumeratorContext<>(1);
        SourceReader<Event, DatagenSplit> reader = source.createReader(new TestReaderContext(0, 1));
        reader.start();

        assertThat(reader.pollNext(e -> { })).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator = source.createEnumerator(context);
        enumerator.start();
        enumerator.addReader(0);
        context.deliverTo(0, reader);
        List<Event> output = new ArrayList<>();
        // Split 3 starts past the end (3 rows, 4 splits) and must simply be empty.
        assertThat(reader.pollNext(output::add)).isEqualTo(InputStatus.END_OF_INPUT);
        assertThat(ids(output)).containsExactlyInAnyOrder("0", "1", "2");
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

    private static List<SourceReader<Event, DatagenSplit>> startReaders(DatagenSource source,
            SplitEnumerator<DatagenSplit, DatagenEnumeratorState> enumerator,
            TestEnumeratorContext<DatagenSplit> context, int parallelism) throws Exception {
        enumerator.start();
        List<SourceReader<Event, DatagenSplit>> readers = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            SourceReader<Event, DatagenSplit> reader = source.createReader(new TestReaderContext(i, parallelism));
            reader.start();
            enumerator.addReader(i);
            context.deliverTo(i, reader);
            readers.add(reader);
        }
        return readers;
    }

    private static List<Event> runBounded(DatagenSource source, int parallelism) throws Exception {
        TestEnumeratorContext<DatagenSplit> context = new TestEnumeratorContext<>(parallelism);
        List<Event> output = new ArrayList<>();
        drainToEnd(startReaders(source, source.createEnumerator(context), context, parallelism), output);
        return output;
    }

    /** Polls the readers in turn, as parallel tasks would, until all report end of input. */
    private static void drainToEnd(List<SourceReader<Event, DatagenSplit>> readers, List<Event> output)
            throws Exception {
        List<SourceReader<Event, DatagenSplit>> running = new ArrayList<>(readers);
        for (int polls = 0; !running.isEmpty(); polls++) {
            assertThat(polls).as("polls before end of input").isLessThan(10_000);
            running.removeIf(reader -> poll(reader, output) == InputStatus.END_OF_INPUT);
        }
    }

    private static InputStatus poll(SourceReader<Event, DatagenSplit> reader, List<Event> output) {
        try {
            return reader.pollNext(output::add);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static <T> byte[] serialize(SimpleVersionedSerializer<T> serializer, T value) throws Exception {
        assertThat(serializer.version()).isEqualTo(1);
        return serializer.serialize(value);
    }

    private static List<String> ids(List<Event> events) {
        return events.stream().map(Event::id).toList();
    }

    private static List<String> range(long from, long to) {
        return LongStream.range(from, to).mapToObj(Long::toString).toList();
    }
}
