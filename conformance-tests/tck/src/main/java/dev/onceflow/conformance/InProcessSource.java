package dev.onceflow.conformance;

import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import dev.onceflow.spi.source.SourceSplit;
import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.ServiceLoader;

/**
 * Drives a source's enumerator and one reader on the calling thread, the way the runtime does,
 * without a job: for the cases that need the source's own objects (its split serializer).
 * Assignments are queued and delivered between polls, as the runtime's mailbox does.
 */
final class InProcessSource<SplitT extends SourceSplit> implements AutoCloseable {

    private final ReplayableSource<Event, SplitT, ?> source;
    private final SplitEnumerator<SplitT, ?> enumerator;
    private final Queue<Runnable> mailbox = new ArrayDeque<>();
    private SourceReader<Event, SplitT> reader;
    private boolean noMoreSplits;

    @SuppressWarnings("unchecked")
    static InProcessSource<SourceSplit> create(String identifier, Map<String, Object> options) throws Exception {
        SourceFactory factory = ServiceLoader.load(SourceFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.identifier().equals(identifier)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no source factory '" + identifier + "' on the classpath"));
        Map<String, String> raw = new LinkedHashMap<>();
        options.forEach((k, v) -> raw.put(k, String.valueOf(v)));
        OptionValues values = OptionValues.validate("source '" + identifier + "'", raw, factory.options());
        return new InProcessSource<>((ReplayableSource<Event, SourceSplit, ?>) factory.createSource(values));
    }

    private InProcessSource(ReplayableSource<Event, SplitT, ?> source) throws Exception {
        this.source = source;
        this.enumerator = source.createEnumerator(new SplitEnumeratorContext<>() {
            @Override
            public int parallelism() {
                return 1;
            }

            @Override
            public void assignSplits(int subtaskIndex, List<SplitT> splits) {
                List<SplitT> copy = List.copyOf(splits);
                mailbox.add(() -> reader.addSplits(copy));
            }

            @Override
            public void signalNoMoreSplits(int subtaskIndex) {
                mailbox.add(() -> {
                    noMoreSplits = true;
                    reader.notifyNoMoreSplits();
                });
            }

            @Override
            public void runPeriodically(Runnable action, Duration period) {
                // bounded sources only: nothing to discover later
            }
        });
        enumerator.start();
    }

    ReplayableSource<Event, SplitT, ?> source() {
        return source;
    }

    /** Starts a reader with {@code restored} splits (empty for a fresh one). */
    void startReader(List<SplitT> restored) throws Exception {
        if (reader != null) {
            reader.close();
        }
        reader = source.createReader(new SourceReaderContext() {
            @Override
            public int subtaskIndex() {
                return 0;
            }

            @Override
            public int parallelism() {
                return 1;
            }

            @Override
            public void sendSplitRequest() {
                mailbox.add(() -> enumerator.handleSplitRequest(0));
            }
        });
        if (!restored.isEmpty()) {
            reader.addSplits(restored);
        }
        reader.start();
        mailbox.add(() -> enumerator.addReader(0));
    }

    /** Polls until {@code limit} records were emitted or the input ended. */
    List<Event> read(int limit, Duration timeout) throws Exception {
        List<Event> out = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (out.size() < limit) {
            while (!mailbox.isEmpty()) {
                mailbox.poll().run();
            }
            InputStatus status = reader.pollNext(out::add);
            if (status == InputStatus.END_OF_INPUT) {
                break;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the source emitted " + out.size() + " records and did not end within "
                        + timeout + (noMoreSplits ? "" : " (no-more-splits was never signalled)"));
            }
        }
        return out;
    }

    List<SplitT> snapshot(long checkpointId) throws Exception {
        return reader.snapshotState(checkpointId);
    }

    @Override
    public void close() throws Exception {
        if (reader != null) {
            reader.close();
        }
        enumerator.close();
    }
}
