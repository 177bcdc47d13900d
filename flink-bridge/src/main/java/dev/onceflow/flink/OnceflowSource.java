package dev.onceflow.flink;

import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.spi.source.SourceSplit;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Any Onceflow {@link ReplayableSource} as a Flink {@link Source}: its enumerator runs in Flink's
 * source coordinator, its readers in Flink's source tasks, and its splits, positions and
 * enumerator state go into Flink's checkpoints through the source's own versioned serializers.
 *
 * <pre>{@code
 * env.fromSource(OnceflowSource.of(() -> DatagenSource.builder().rows(1_000_000).build(),
 *         TypeInformation.of(Event.class)), WatermarkStrategy.noWatermarks(), "events");
 * }</pre>
 *
 * <p>Flink restarts failed readers without resetting the enumerator to the checkpoint, where
 * Onceflow's runtime recreates both; {@link EnumeratorBridge} reconciles the two (see there).
 */
public final class OnceflowSource<T, S extends SourceSplit, E>
        implements Source<T, BridgedSplit<S>, E>, ResultTypeQueryable<T> {

    private static final long serialVersionUID = 1L;

    private final SerializableSupplier<? extends ReplayableSource<T, S, E>> factory;
    private final TypeInformation<T> type;
    private transient ReplayableSource<T, S, E> source;

    private OnceflowSource(SerializableSupplier<? extends ReplayableSource<T, S, E>> factory, TypeInformation<T> type) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.type = Objects.requireNonNull(type, "type");
    }

    /**
     * A Flink source that builds its Onceflow source with {@code factory} wherever Flink runs it.
     *
     * @param type the records' Flink type, e.g. {@code TypeInformation.of(Event.class)}
     */
    public static <T, S extends SourceSplit, E> OnceflowSource<T, S, E> of(
            SerializableSupplier<? extends ReplayableSource<T, S, E>> factory, TypeInformation<T> type) {
        return new OnceflowSource<>(factory, type);
    }

    private ReplayableSource<T, S, E> source() {
        if (source == null) {
            source = Objects.requireNonNull(factory.get(), "the source factory returned null");
        }
        return source;
    }

    @Override
    public Boundedness getBoundedness() {
        return source().boundedness() == dev.onceflow.spi.source.Boundedness.BOUNDED
                ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<T, BridgedSplit<S>> createReader(SourceReaderContext context) throws Exception {
        return new ReaderBridge<>(source(), context);
    }

    @Override
    public SplitEnumerator<BridgedSplit<S>, E> createEnumerator(SplitEnumeratorContext<BridgedSplit<S>> context)
            throws Exception {
        EnumeratorBridge<S, E> bridge = new EnumeratorBridge<>(context);
        bridge.setEnumerator(source().createEnumerator(bridge.onceflowContext()));
        return bridge;
    }

    @Override
    public SplitEnumerator<BridgedSplit<S>, E> restoreEnumerator(SplitEnumeratorContext<BridgedSplit<S>> context,
            E checkpoint) throws Exception {
        EnumeratorBridge<S, E> bridge = new EnumeratorBridge<>(context);
        bridge.setEnumerator(source().restoreEnumerator(bridge.onceflowContext(), checkpoint));
        return bridge;
    }

    @Override
    public SimpleVersionedSerializer<BridgedSplit<S>> getSplitSerializer() {
        return new BridgedSerializer<>(source().splitSerializer(), BridgedSplit::split, BridgedSplit::new);
    }

    @Override
    public SimpleVersionedSerializer<E> getEnumeratorCheckpointSerializer() {
        return BridgedSerializer.same(source().enumeratorStateSerializer());
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return type;
    }
}
