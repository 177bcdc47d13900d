package dev.onceflow.connector.postgrescdc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.storage.OffsetBackingStore;
import org.apache.kafka.connect.util.Callback;

/**
 * The offset store the Debezium engine of a {@code postgres-cdc} reader is given ({@code
 * offset.storage}): it shows Debezium only the offset of the last <em>completed</em> Onceflow
 * checkpoint, and keeps nothing Debezium writes.
 *
 * <p>Why: Debezium confirms the replication slot up to the offset it reads back from its store
 * (at its next commit), and PostgreSQL never sends WAL before the slot's confirmed position again.
 * Were the slot confirmed past the last completed checkpoint, a restore from that checkpoint would
 * start behind the slot and the changes in between would be lost without a word. Showing only the
 * completed checkpoint's offset keeps the slot at or behind every checkpoint a job can restore.
 *
 * <p>Debezium creates the store by its class name, so a reader reaches its instance through a
 * {@link Handle} registered under a random id passed in the engine's configuration.
 */
public final class CheckpointedOffsetStore implements OffsetBackingStore {

    /** The engine property naming the {@link Handle} of the reader that started the engine. */
    static final String HANDLE_PROPERTY = "onceflow.offsets.handle";

    private static final Map<String, Handle> HANDLES = new ConcurrentHashMap<>();

    private Handle handle;

    /** Where a reader puts the offset of each completed checkpoint for its engine to read. */
    static final class Handle implements AutoCloseable {

        private final String id = UUID.randomUUID().toString();
        private volatile String completed;

        /** @param restored the offset of the restored checkpoint, or {@code null} for a first start */
        static Handle open(String restored) {
            Handle handle = new Handle();
            handle.completed = restored;
            HANDLES.put(handle.id, handle);
            return handle;
        }

        String id() {
            return id;
        }

        /** Called on the task thread when a checkpoint holding {@code offset} completed. */
        void checkpointCompleted(String offset) {
            completed = offset;
        }

        @Override
        public void close() {
            HANDLES.remove(id);
        }
    }

    @Override
    public void configure(WorkerConfig config) {
        String id = config.originalsStrings().get(HANDLE_PROPERTY);
        handle = id == null ? null : HANDLES.get(id);
        if (handle == null) {
            throw new IllegalStateException("the postgres-cdc offset store is only for engines a postgres-cdc reader "
                    + "starts (no handle '" + id + "')");
        }
    }

    @Override
    public void start() {
    }

    @Override
    public void stop() {
    }

    /** Every key (this engine has one connector and one source partition) maps to the completed offset. */
    @Override
    public Future<Map<ByteBuffer, ByteBuffer>> get(Collection<ByteBuffer> keys) {
        String offset = handle.completed;
        Map<ByteBuffer, ByteBuffer> values = new HashMap<>();
        if (offset != null) {
            for (ByteBuffer key : keys) {
                values.put(key, ByteBuffer.wrap(offset.getBytes(StandardCharsets.UTF_8)));
            }
        }
        return CompletableFuture.completedFuture(values);
    }

    /** Debezium's own flushes are acknowledged and dropped: only checkpoints move the offset. */
    @Override
    public Future<Void> set(Map<ByteBuffer, ByteBuffer> values, Callback<Void> callback) {
        if (callback != null) {
            callback.onCompletion(null, null);
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public Set<Map<String, Object>> connectorPartitions(String connectorName) {
        return Set.of();
    }
}
