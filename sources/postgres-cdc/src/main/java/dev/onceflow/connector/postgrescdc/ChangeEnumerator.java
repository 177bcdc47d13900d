package dev.onceflow.connector.postgrescdc;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.io.IOException;
import java.util.List;

/**
 * Hands the one split to reader 0, once in the life of the job: a replication slot has one
 * reader. Other readers get nothing. Its checkpointed state is whether the split was handed out;
 * once it was, the split and its position live in reader 0's state (SRC-3).
 */
final class ChangeEnumerator implements SplitEnumerator<ChangeSplit, Boolean> {

    /** Writes the state: version 1, one byte, 1 once the split was assigned. */
    static final SimpleVersionedSerializer<Boolean> STATE_SERIALIZER = new SimpleVersionedSerializer<>() {
        @Override
        public int version() {
            return 1;
        }

        @Override
        public byte[] serialize(Boolean assigned) throws IOException {
            return Serializers.write(out -> out.writeBoolean(assigned));
        }

        @Override
        public Boolean deserialize(int version, byte[] serialized) throws IOException {
            Serializers.checkVersion(1, version, "postgres-cdc enumerator state");
            return Serializers.read(serialized, in -> in.readBoolean());
        }
    };

    private final SplitEnumeratorContext<ChangeSplit> context;
    private boolean assigned;

    ChangeEnumerator(SplitEnumeratorContext<ChangeSplit> context, boolean assigned) {
        this.context = context;
        this.assigned = assigned;
    }

    @Override
    public void start() {
    }

    @Override
    public void addReader(int subtaskIndex) {
        if (subtaskIndex == 0 && !assigned) {
            context.assignSplits(0, List.of(new ChangeSplit(null)));
            assigned = true;
        }
        context.signalNoMoreSplits(subtaskIndex);
    }

    @Override
    public void handleSplitRequest(int subtaskIndex) {
        // The one split is pushed to reader 0; there is never more to hand out.
    }

    @Override
    public Boolean snapshotState(long checkpointId) {
        return assigned;
    }

    @Override
    public void close() {
    }
}
