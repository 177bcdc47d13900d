package dev.onceflow.connector.datagen;

import dev.onceflow.spi.record.Event;
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

/**
 * A deterministic, replayable generator of {@link Event}s, for tests, demos and benchmarks.
 *
 * <p>Sequence number {@code s} (from 0) becomes {@code Event(id = s, key = "key-" + s % keys,
 * payload = payloadSize characters derived from s, count = 0)}. The sequence is cut into
 * {@code splits} strided splits whose only position is the next sequence number, so a restore
 * continues exactly where the checkpoint was taken and the union of all runs holds every id once.
 *
 * <pre>{@code
 * ReplayableSource<Event, DatagenSplit, DatagenEnumeratorState> source =
 *         DatagenSource.builder().rows(1000).keys(10).rowsPerSecond(0).splits(4).build();
 * }</pre>
 *
 * <p>Immutable and thread-safe; holds only settings.
 */
public final class DatagenSource implements ReplayableSource<Event, DatagenSplit, DatagenEnumeratorState> {

    private final OptionalLong rows;
    private final int splits;
    private final long rowsPerSecond;
    private final EventGenerator generator;

    private DatagenSource(Builder builder) {
        this.rows = builder.rows;
        this.splits = builder.splits;
        this.rowsPerSecond = builder.rowsPerSecond;
        this.generator = new EventGenerator(builder.keys, builder.payloadSize);
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
        long end = rows.orElse(Long.MAX_VALUE);
        List<DatagenSplit> initial = new ArrayList<>(splits);
        for (int index = 0; index < splits; index++) {
            initial.add(DatagenSplit.initial(index, splits, end));
        }
        return new DatagenEnumerator(context, rows.isPresent(), initial);
    }

    @Override
    public SplitEnumerator<DatagenSplit, DatagenEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<DatagenSplit> context, DatagenEnumeratorState state) {
        return new DatagenEnumerator(context, rows.isPresent(), state.unassigned());
    }

    @Override
    public SourceReader<Event, DatagenSplit> createReader(SourceReaderContext context) {
        // The configured rate is for the whole source; each reader takes an equal share.
        double ratePerReader = rowsPerSecond == 0 ? 0 : (double) rowsPerSecond / context.parallelism();
        return new DatagenReader(generator, ratePerReader);
    }

    @Override
    public SimpleVersionedSerializer<DatagenSplit> splitSerializer() {
        return DatagenSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<DatagenEnumeratorState> enumeratorStateSerializer() {
        return DatagenEnumeratorStateSerializer.INSTANCE;
    }

    /** Builds a {@link DatagenSource}; each setter validates its argument at once. */
    public static final class Builder {

        private OptionalLong rows = OptionalLong.empty();
        private int keys = 10;
        private long rowsPerSecond;
        private int splits = 4;
        private int payloadSize = 16;

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

        /** Number of splits ({@code >= 1}): the most readers that can share the work. */
        public Builder splits(int splits) {
            this.splits = (int) requireAtLeast("splits", splits, 1);
            return this;
        }

        /** Payload length in characters ({@code >= 0}). */
        public Builder payloadSize(int payloadSize) {
            this.payloadSize = (int) requireAtLeast("payload-size", payloadSize, 0);
            return this;
        }

        public DatagenSource build() {
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
