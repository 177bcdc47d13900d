package dev.onceflow.connector.datagen;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.source.Boundedness;
import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.LongFunction;

/**
 * A deterministic, replayable generator of {@link Event}s, for tests, demos and benchmarks.
 *
 * <p>Sequence number {@code s} (from 0) becomes {@code Event(id = s, key = "key-" + s % keys,
 * payload = payloadSize characters derived from s, count = 0)}. The sequence is cut into
 * {@code splits} strided splits whose only position is the next sequence number, so a restore
 * continues exactly where the checkpoint was taken and the union of all runs holds every id once.
 * How splits reach readers is a {@link SplitAssignment}.
 *
 * <pre>{@code
 * ReplayableSource<Event, DatagenSplit, DatagenEnumeratorState> source =
 *         DatagenSource.builder().rows(1000).keys(10).rowsPerSecond(0).splits(4).build();
 * }</pre>
 *
 * <p>Immutable and thread-safe; holds only settings.
 */
public final class DatagenSource implements ReplayableSource<Event, DatagenSplit, DatagenEnumeratorState> {

    /** Most ranges a bounded sequence is cut into; see {@link #chunks}. */
    static final long MAX_RANGES = 64;
    /** Fewest rows in a range (but the last), so small sources are not cut into many tiny chunks. */
    static final long MIN_RANGE_ROWS = 1_000;
    /** Most chunks in all, so a large {@code splits} does not make a huge enumerator state. */
    static final long MAX_CHUNKS = 4_096;

    private final OptionalLong rows;
    private final int splits;
    private final SplitAssignment splitAssignment;
    private final long rowsPerSecond;
    private final EventGenerator generator;
    private final long firstId;

    private DatagenSource(Builder builder) {
        this.rows = builder.rows;
        this.splits = builder.splits;
        this.splitAssignment = builder.splitAssignment;
        this.rowsPerSecond = builder.rowsPerSecond;
        this.generator = new EventGenerator(builder.keys, builder.payloadSize);
        this.firstId = builder.firstId;
    }

    /** A builder with the defaults: unbounded, 10 keys, unlimited rate, 4 splits, 16 payload characters. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Boundedness boundedness() {
        return rows.isPresent() ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<DatagenSplit, DatagenEnumeratorState> createEnumerator(
            SplitEnumeratorContext<DatagenSplit> context) {
        if (splitAssignment == SplitAssignment.ON_DEMAND) {
            return new DatagenEnumerator(context, true, splitAssignment, chunks(splits, rows.getAsLong()));
        }
        long end = rows.orElse(Long.MAX_VALUE);
        List<DatagenSplit> initial = new ArrayList<>(splits);
        for (int index = 0; index < splits; index++) {
            initial.add(DatagenSplit.initial(index, splits, end));
        }
        return new DatagenEnumerator(context, rows.isPresent(), splitAssignment, initial);
    }

    /**
     * The splits of a bounded source read {@link SplitAssignment#ON_DEMAND}: the sequence
     * {@code 0..rows-1} is cut into up to {@value #MAX_RANGES} ranges of at least {@value #MIN_RANGE_ROWS} rows (the last may be
     * shorter) and at most {@value #MAX_CHUNKS} chunks in all, and each range into
     * {@code splitCount} strided chunks. Chunk {@code i} of a range {@code [from, to)} holds the
     * sequence numbers {@code s} in it with {@code s % splitCount == i}, so the union of all chunks is
     * every sequence number once. Ordered by range, so the output moves through the sequence roughly
     * in order. Empty chunks (a range shorter than the stride) are left out.
     */
    static List<DatagenSplit> chunks(int splitCount, long rows) {
        long ranges = Math.max(1, Math.min(Math.min(MAX_RANGES, MAX_CHUNKS / splitCount), rows / MIN_RANGE_ROWS));
        // Rounded up without rows + ranges - 1, which overflows near Long.MAX_VALUE.
        long rangeRows = rows / ranges + (rows % ranges == 0 ? 0 : 1);
        List<DatagenSplit> chunks = new ArrayList<>();
        for (long from = 0, to; from < rows; from = to) {
            to = rows - from <= rangeRows ? rows : from + rangeRows;
            for (int index = 0; index < splitCount; index++) {
                // The first sequence number at or after from that belongs to stride index.
                long first = from + Math.floorMod(index - from, (long) splitCount);
                if (first >= from && first < to) { // first < from: overflowed past Long.MAX_VALUE
                    chunks.add(new DatagenSplit(index, splitCount, first, to));
                }
            }
        }
        return chunks;
    }

    @Override
    public SplitEnumerator<DatagenSplit, DatagenEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<DatagenSplit> context, DatagenEnumeratorState state) {
        return new DatagenEnumerator(context, rows.isPresent(), splitAssignment, state.unassigned());
    }

    @Override
    public SourceReader<Event, DatagenSplit> createReader(SourceReaderContext context) {
        long firstId = this.firstId;
        return new DatagenReader<>(s -> generator.eventAt(firstId + s), context, ratePerReader(context));
    }

    /** The configured rate is for the whole source; each reader takes an equal share. */
    private double ratePerReader(SourceReaderContext context) {
        return rowsPerSecond == 0 ? 0 : (double) rowsPerSecond / context.parallelism();
    }

    /**
     * This source yielding its events as rows of {@link EventRows#SCHEMA}: the same values,
     * splits and state, without an event made and converted per record. Job files read these.
     */
    public ReplayableSource<Row, DatagenSplit, DatagenEnumeratorState> asRows() {
        long firstId = this.firstId;
        return new Rows(s -> generator.rowAt(firstId + s));
    }

    /**
     * This source yielding the rows of {@code generator} instead of events: the same splits and
     * state, the generator's row of each sequence number. The caller keeps this source's rows
     * within {@link RowGenerator#length()}, as {@link DatagenSourceFactory} does.
     */
    public ReplayableSource<Row, DatagenSplit, DatagenEnumeratorState> asRows(RowGenerator generator) {
        return new Rows(generator::rowAt);
    }

    /** The same source, with readers that make rows. */
    private final class Rows implements ReplayableSource<Row, DatagenSplit, DatagenEnumeratorState> {

        private final LongFunction<Row> rowAt;

        Rows(LongFunction<Row> rowAt) {
            this.rowAt = rowAt;
        }

        @Override
        public Boundedness boundedness() {
            return DatagenSource.this.boundedness();
        }

        @Override
        public SplitEnumerator<DatagenSplit, DatagenEnumeratorState> createEnumerator(
                SplitEnumeratorContext<DatagenSplit> context) {
            return DatagenSource.this.createEnumerator(context);
        }

        @Override
        public SplitEnumerator<DatagenSplit, DatagenEnumeratorState> restoreEnumerator(
                SplitEnumeratorContext<DatagenSplit> context, DatagenEnumeratorState state) {
            return DatagenSource.this.restoreEnumerator(context, state);
        }

        @Override
        public SourceReader<Row, DatagenSplit> createReader(SourceReaderContext context) {
            return new DatagenReader<>(rowAt, context, ratePerReader(context));
        }

        @Override
        public SimpleVersionedSerializer<DatagenSplit> splitSerializer() {
            return DatagenSource.this.splitSerializer();
        }

        @Override
        public SimpleVersionedSerializer<DatagenEnumeratorState> enumeratorStateSerializer() {
            return DatagenSource.this.enumeratorStateSerializer();
        }
    }

    @Override
    public SimpleVersionedSerializer<DatagenSplit> splitSerializer() {
        return DatagenSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<DatagenEnumeratorState> enumeratorStateSerializer() {
        return DatagenEnumeratorStateSerializer.INSTANCE;
    }

    /** How the enumerator hands splits to readers. */
    public enum SplitAssignment {
        /**
         * Each reader gets the splits with {@code index % parallelism == subtask} when it comes up
         * and keeps them. Every reader's records come in the order of its splits' sequence
         * numbers, and which reader emits which ids is fixed, which event-time tests rely on.
         * Each reader does an equal share, so the slowest one decides when a bounded job ends.
         */
        STATIC,
        /**
         * Bounded only. The sequence is cut into chunks (see {@link #chunks}) handed out as readers
         * ask: two to each reader when it comes up, one more each time it has used one up. A
         * reader that gets more of the machine takes more chunks, so the readers finish within
         * about one chunk of each other. Which reader emits which ids depends on timing, and a
         * reader's records are in sequence order only within each chunk.
         */
        ON_DEMAND
    }

    /** Builds a {@link DatagenSource}; each setter validates its argument at once. */
    public static final class Builder {

        private OptionalLong rows = OptionalLong.empty();
        private int keys = 10;
        private long rowsPerSecond;
        private int splits = 4;
        private int payloadSize = 16;
        private long firstId;
        private SplitAssignment splitAssignment = SplitAssignment.STATIC;

        private Builder() {
        }

        /** Emit exactly {@code rows} records ({@code >= 1}), then end. */
        public Builder rows(long rows) {
            this.rows = OptionalLong.of(requireAtLeast("rows", rows, 1));
            return this;
        }

        /** Never end (the default). */
        public Builder unbounded() {
            this.rows = OptionalLong.empty();
            return this;
        }

        /** Number of distinct keys ({@code >= 1}). */
        public Builder keys(int keys) {
            this.keys = (int) requireAtLeast("keys", keys, 1);
            return this;
        }

        /** Records per second across all readers ({@code >= 0}); 0 means unlimited. */
        public Builder rowsPerSecond(long rowsPerSecond) {
            this.rowsPerSecond = requireAtLeast("rows-per-second", rowsPerSecond, 0);
            return this;
        }

        /**
         * Number of strided splits ({@code >= 1}). With {@link SplitAssignment#STATIC}, the most
         * readers that can share the work; with {@link SplitAssignment#ON_DEMAND}, the stride of
         * each chunk, and the readers share the chunks.
         */
        public Builder splits(int splits) {
            this.splits = (int) requireAtLeast("splits", splits, 1);
            return this;
        }

        /** Payload length in characters ({@code >= 0}). */
        public Builder payloadSize(int payloadSize) {
            this.payloadSize = (int) requireAtLeast("payload-size", payloadSize, 0);
            return this;
        }

        /**
         * The sequence number of the first event ({@code >= 0}, default 0): event {@code s} of the
         * source is the generator's event {@code firstId + s} (its id, key and payload). Two runs
         * with disjoint ranges write ids that cannot be mistaken for each other's. Events only.
         */
        public Builder firstId(long firstId) {
            this.firstId = requireAtLeast("first-id", firstId, 0);
            return this;
        }

        /** How splits reach readers; {@link SplitAssignment#STATIC} by default. */
        public Builder splitAssignment(SplitAssignment splitAssignment) {
            this.splitAssignment = java.util.Objects.requireNonNull(splitAssignment, "splitAssignment");
            return this;
        }

        /**
         * @throws IllegalArgumentException if {@link SplitAssignment#ON_DEMAND} is asked of an
         *     unbounded source
         */
        public DatagenSource build() {
            if (splitAssignment == SplitAssignment.ON_DEMAND && rows.isEmpty()) {
                throw new IllegalArgumentException("split-assignment on-demand needs rows: an unbounded source's "
                        + "splits never end, so there is nothing to hand out as readers finish; set rows or use static");
            }
            return new DatagenSource(this);
        }

        private static long requireAtLeast(String name, long value, long minimum) {
            if (value < minimum) {
                throw new IllegalArgumentException(name + " must be >= " + minimum + ", was " + value);
            }
            return value;
        }
    }
}
