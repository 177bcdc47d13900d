package dev.onceflow.flink;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.IOException;
import java.util.function.Function;

/**
 * An Onceflow serializer seen as Flink's: the same version and bytes, so what Flink stores in its
 * checkpoints is what Onceflow's runtime stores (SER rules of {@code docs/spec.md}). Values can be
 * wrapped on the way ({@link BridgedSplit}).
 */
final class BridgedSerializer<F, O> implements org.apache.flink.core.io.SimpleVersionedSerializer<F> {

    private final SimpleVersionedSerializer<O> onceflow;
    private final Function<F, O> unwrap;
    private final Function<O, F> wrap;

    BridgedSerializer(SimpleVersionedSerializer<O> onceflow, Function<F, O> unwrap, Function<O, F> wrap) {
        this.onceflow = onceflow;
        this.unwrap = unwrap;
        this.wrap = wrap;
    }

    static <T> BridgedSerializer<T, T> same(SimpleVersionedSerializer<T> onceflow) {
        return new BridgedSerializer<>(onceflow, Function.identity(), Function.identity());
    }

    @Override
    public int getVersion() {
        return onceflow.version();
    }

    @Override
    public byte[] serialize(F value) throws IOException {
        return onceflow.serialize(unwrap.apply(value));
    }

    @Override
    public F deserialize(int version, byte[] serialized) throws IOException {
        return wrap.apply(onceflow.deserialize(version, serialized));
    }
}
