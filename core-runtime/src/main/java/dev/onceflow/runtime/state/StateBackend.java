package dev.onceflow.runtime.state;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Where a job's keyed state lives while it runs: {@link HeapStateBackend} (the default) or another
 * implementation found on the class path, such as the RocksDB backend of the
 * {@code onceflow-state-rocksdb} module. Chosen per job with
 * {@code StreamEnvironment.setStateBackend} or by name with the system property
 * {@value #BACKEND_PROPERTY}. Implementations are registered for {@link ServiceLoader} under
 * {@code META-INF/services/dev.onceflow.runtime.state.StateBackend} and need a public no-argument
 * constructor for that.
 *
 * <p>Called on the task thread of each keyed operator, once per attempt, when the operator's state
 * is initialized. Implementations are shared by all subtasks of a job: thread-safe.
 */
public interface StateBackend {

    /** System property {@value}: the name of the state backend of jobs that do not set one. */
    String BACKEND_PROPERTY = "onceflow.state.backend";

    /** The name users select the backend by ({@code heap}, {@code rocksdb}). */
    String name();

    /**
     * A new, empty keyed state backend for one operator's subtask.
     *
     * @throws IOException if local resources (directories, native libraries) cannot be set up
     */
    <K> KeyedStateBackend<K> createKeyedStateBackend(Scope scope, SimpleVersionedSerializer<K> keySerializer)
            throws IOException;

    /**
     * Which operator subtask a keyed backend serves.
     *
     * @param attemptId unique per process attempt, so local files of an earlier attempt are never reused
     */
    record Scope(String jobName, String operatorUid, int subtask, int parallelism, int maxParallelism,
            String attemptId) {
    }

    /** The backend named by {@value #BACKEND_PROPERTY}, or the heap backend if it is not set. */
    static StateBackend fromSystemProperties() {
        String name = System.getProperty(BACKEND_PROPERTY);
        return name == null || name.isBlank() ? new HeapStateBackend() : named(name.trim());
    }

    /**
     * The backend registered under {@code name}.
     *
     * @throws IllegalArgumentException naming the backends there are if none has that name
     */
    static StateBackend named(String name) {
        List<String> known = new ArrayList<>();
        for (StateBackend backend : ServiceLoader.load(StateBackend.class)) {
            if (backend.name().equals(name)) {
                return backend;
            }
            known.add(backend.name());
        }
        throw new IllegalArgumentException("no state backend named '" + name + "' on the class path; known: " + known
                + (name.equals("rocksdb") ? " (add the onceflow-state-rocksdb jar)" : ""));
    }
}
