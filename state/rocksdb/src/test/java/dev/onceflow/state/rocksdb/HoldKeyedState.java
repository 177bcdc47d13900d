package dev.onceflow.state.rocksdb;

import dev.onceflow.runtime.state.KeyedStateBackend;
import dev.onceflow.runtime.state.StateBackend;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.serialization.Serializers;
import java.nio.file.Path;

/**
 * A process that opens RocksDB keyed state for job {@code job}, operator {@code count}, subtask 0,
 * writes to it, prints {@code ready} and then waits until it is killed, never closing the backend:
 * what {@link AttemptLockTest} kills to leave files behind as a crash does.
 *
 * <p>Arguments: the backend's local directory, the attempt id.
 */
public final class HoldKeyedState {

    private HoldKeyedState() {
    }

    public static void main(String[] args) throws Exception {
        KeyedStateBackend<String> backend = new RocksDBStateBackend(Path.of(args[0])).createKeyedStateBackend(
                new StateBackend.Scope("job", "count", 0, 1, 128, args[1]), Serializers.STRING);
        ValueState<Long> count = backend.state(StateDescriptor.value("count", Serializers.LONG));
        for (int i = 0; i < 10_000; i++) {
            backend.setCurrentKey("key-" + i);
            count.update((long) i);
        }
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
