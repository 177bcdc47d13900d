package dev.onceflow.runtime.state;

import java.io.IOException;
import java.util.Map;
import java.util.SortedMap;
import java.util.function.Consumer;

/**
 * The keyed state of one operator in one parallel subtask: the key groups the subtask owns, each
 * holding the operator's named states per key.
 *
 * <p><b>Caller and thread.</b> The operator that owns it, on its task thread, except
 * {@link Snapshot#serialize()}, which runs once on a snapshot thread while the task goes on.
 *
 * <p><b>Lifecycle.</b> Created fresh for every attempt, {@link #restore} before any state is
 * registered, then states are registered and used, {@link #freeze()} at each barrier, and
 * {@link #close()} when the operator ends or is cancelled. Nothing a backend keeps locally has to
 * survive a crash: after one, the next attempt restores from the last completed checkpoint.
 *
 * <p><b>Snapshot format.</b> Every backend writes the same per-key-group blobs (see
 * {@code docs/state.md}), so a checkpoint or savepoint of one backend restores on another, at any
 * parallelism.
 */
public interface KeyedStateBackend<K> extends AutoCloseable {

    /**
     * Scopes every state to {@code key} until the next call.
     *
     * @throws IllegalStateException if the key's group belongs to another subtask
     */
    void setCurrentKey(K key);

    /**
     * {@link #setCurrentKey(Object)} for a key whose group the caller already has: the channel
     * that routed the record computed {@code keyGroup} as {@link KeyGroups#keyGroupOf} with the
     * job's max parallelism. A backend may use it instead of hashing the key again; the default
     * ignores it.
     *
     * @throws IllegalStateException if the key group belongs to another subtask
     */
    default void setCurrentKey(K key, int keyGroup) {
        setCurrentKey(key);
    }

    /** The key set last, or {@code null} before the first. */
    K currentKey();

    <T> ValueState<T> state(StateDescriptor.Value<T> descriptor);

    <T> ReducingState<T> state(StateDescriptor.Reducing<T> descriptor);

    <IN, ACC, OUT> AggregatingState<IN, OUT> state(StateDescriptor.Aggregating<IN, ACC, OUT> descriptor);

    <T> ListState<T> state(StateDescriptor.List<T> descriptor);

    <UK, UV> MapState<UK, UV> state(StateDescriptor.Map<UK, UV> descriptor);

    /**
     * Calls {@code action} with every key that has a value in the registered state {@code name},
     * in no particular order, over a copy of the keys: {@code action} may set the current key and
     * change state.
     */
    void forEachKey(String name, Consumer<K> action);

    /**
     * The synchronous part of a snapshot, on the task thread at the barrier: a consistent view of
     * every owned key group that later writes do not change. Must not cost time in proportion to
     * the state's size.
     */
    Snapshot freeze();

    /**
     * Like {@link #freeze()}, for a backend that can snapshot in its own format: a checkpoint may
     * then upload only what changed since {@code options.lastCompletedCheckpointId()}. The default
     * takes the portable snapshot, which is also what savepoints must get.
     */
    default Snapshot freeze(SnapshotOptions options) {
        return freeze();
    }

    /** Takes a snapshot and serializes it at once, on the calling thread, into memory. */
    default SortedMap<Integer, byte[]> snapshot() throws IOException {
        SortedMap<Integer, byte[]> serialized = freeze().serialize();
        if (serialized instanceof AutoCloseable spilled) {
            // Written to a local file by the backend: read it back, then let the file go.
            try (spilled) {
                return new java.util.TreeMap<>(serialized);
            } catch (IOException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e.getMessage(), e);
            }
        }
        return serialized;
    }

    /**
     * Loads key groups from a snapshot of any backend. Groups outside this subtask's range are
     * ignored (they belong to another subtask after rescaling). Called at most once, before any
     * state is registered.
     *
     * @throws IOException if a blob is corrupt or of an unknown format version
     */
    void restore(Map<Integer, byte[]> keyGroups) throws IOException;

    /**
     * Loads a snapshot that may hold state in a backend's own format too ({@code natives}: every
     * former subtask's; those not overlapping this subtask's key groups are to be ignored). The
     * default restores only the portable format.
     *
     * @throws IllegalStateException if {@code natives} has state this backend cannot read
     */
    default void restore(Map<Integer, byte[]> keyGroups, java.util.List<NativeKeyedState> natives,
            SharedStateStore shared) throws IOException {
        if (!natives.isEmpty()) {
            throw new IllegalStateException("the checkpoint holds keyed state in the format of the '"
                    + natives.get(0).backend() + "' backend, which this backend cannot read; select that backend, or "
                    + "take a savepoint with it and restore that (savepoints are portable)");
        }
        restore(keyGroups);
    }

    /**
     * Releases what the backend holds (native memory, local files). Waits for a snapshot being
     * serialized to stop; later {@link Snapshot#serialize()} calls fail. Idempotent.
     */
    @Override
    void close() throws IOException;

    /**
     * What a snapshot is for.
     *
     * @param lastCompletedCheckpointId the newest checkpoint completed when this one was triggered
     *     (-1 if none): the only one whose files an incremental snapshot may refer to, because
     *     the runtime keeps it, and its shared files, at least until this one is done
     * @param shared where a snapshot in a backend's own format puts files shared between checkpoints
     */
    record SnapshotOptions(long checkpointId, boolean savepoint, long lastCompletedCheckpointId,
            SharedStateStore shared) {
    }

    /** A consistent view of the keyed state at one barrier. */
    interface Snapshot {

        /**
         * The snapshot as a checkpoint stores it: portable blobs, or state in the backend's own
         * format. Called at most once, instead of {@link #serialize()}, on any one thread.
         */
        default Result write() throws IOException {
            return new Result(serialize(), null);
        }

        /**
         * One blob per owned key group that holds state, in the format {@link #restore} reads.
         * Called at most once, on any one thread; releases the view when done, also on failure.
         * A backend whose state may not fit the heap returns the blobs in a local file instead
         * ({@code dev.onceflow.runtime.checkpoint.StoredKeyGroups}, closed by whoever writes them).
         *
         * <p>Stops early, between key groups, with {@link java.io.InterruptedIOException} when its
         * thread is interrupted: the job attempt ended and waits for its snapshot threads to stop.
         *
         * @throws IOException if the view cannot be read, for instance because the backend was
         *     closed meanwhile
         */
        SortedMap<Integer, byte[]> serialize() throws IOException;

        /**
         * For the loops of {@link #serialize()} and {@link #write()}, once per key group or file:
         * ends a snapshot whose attempt ended. A file being written when the interrupt comes is
         * finished, unless its stream stops at interrupts itself (local file channels do).
         */
        static void stopIfInterrupted() throws java.io.InterruptedIOException {
            if (Thread.currentThread().isInterrupted()) {
                throw new java.io.InterruptedIOException("the snapshot was stopped: its job attempt ended");
            }
        }
    }

    /** A written snapshot: portable key group blobs, or ({@code nativeState} not null) the backend's own. */
    record Result(SortedMap<Integer, byte[]> keyGroups, NativeKeyedState nativeState) {
    }
}
