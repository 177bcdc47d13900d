package dev.onceflow.conformance.flink;

import dev.onceflow.runtime.fault.FaultPoints;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.runtime.checkpoint.filemerging.FileMergingSnapshotManager;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.state.CheckpointMetadataOutputStream;
import org.apache.flink.runtime.state.CheckpointStateOutputStream;
import org.apache.flink.runtime.state.CheckpointStateToolset;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.CheckpointStorageAccess;
import org.apache.flink.runtime.state.CheckpointStorageFactory;
import org.apache.flink.runtime.state.CheckpointStorageLocation;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.CheckpointStorageWorkerView;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.CompletedCheckpointStorageLocation;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;

/**
 * Flink's file system checkpoint storage with the checkpoint coordinator's two fault points, at
 * the same steps as in Onceflow's coordinator: {@code coordinator.before-metadata} when Flink's
 * coordinator, all tasks having acknowledged, opens the checkpoint's {@code _metadata} file, and
 * {@code coordinator.after-complete-before-notify} once that file is written and closed, before
 * Flink tells the tasks (and so the committers) that the checkpoint completed. Selected with
 * {@code state.checkpoint-storage: dev.onceflow.conformance.flink.FaultingCheckpointStorage$Factory}.
 */
public final class FaultingCheckpointStorage implements CheckpointStorage {

    private static final long serialVersionUID = 1L;

    private final CheckpointStorage delegate;

    private FaultingCheckpointStorage(CheckpointStorage delegate) {
        this.delegate = delegate;
    }

    /** Builds it over {@link FileSystemCheckpointStorage} from {@code execution.checkpointing.dir} and friends. */
    public static final class Factory implements CheckpointStorageFactory<FaultingCheckpointStorage> {
        @Override
        public FaultingCheckpointStorage createFromConfig(ReadableConfig config, ClassLoader classLoader)
                throws IllegalConfigurationException {
            return new FaultingCheckpointStorage(FileSystemCheckpointStorage.createFromConfig(config, classLoader));
        }
    }

    @Override
    public CompletedCheckpointStorageLocation resolveCheckpoint(String pointer) throws IOException {
        return delegate.resolveCheckpoint(pointer);
    }

    @Override
    public CheckpointStorageAccess createCheckpointStorage(JobID jobId) throws IOException {
        return new Access(delegate.createCheckpointStorage(jobId));
    }

    private record Access(CheckpointStorageAccess delegate) implements CheckpointStorageAccess {

        @Override
        public boolean supportsHighlyAvailableStorage() {
            return delegate.supportsHighlyAvailableStorage();
        }

        @Override
        public boolean hasDefaultSavepointLocation() {
            return delegate.hasDefaultSavepointLocation();
        }

        @Override
        public CompletedCheckpointStorageLocation resolveCheckpoint(String pointer) throws IOException {
            return delegate.resolveCheckpoint(pointer);
        }

        @Override
        public void initializeBaseLocationsForCheckpoint() throws IOException {
            delegate.initializeBaseLocationsForCheckpoint();
        }

        @Override
        public CheckpointStorageLocation initializeLocationForCheckpoint(long checkpointId) throws IOException {
            return new Location(delegate.initializeLocationForCheckpoint(checkpointId));
        }

        @Override
        public CheckpointStorageLocation initializeLocationForSavepoint(long checkpointId, String location)
                throws IOException {
            return delegate.initializeLocationForSavepoint(checkpointId, location);
        }

        @Override
        public CheckpointStreamFactory resolveCheckpointStorageLocation(long checkpointId,
                CheckpointStorageLocationReference reference) throws IOException {
            return delegate.resolveCheckpointStorageLocation(checkpointId, reference);
        }

        @Override
        public CheckpointStateOutputStream createTaskOwnedStateStream() throws IOException {
            return delegate.createTaskOwnedStateStream();
        }

        @Override
        public CheckpointStateToolset createTaskOwnedCheckpointStateToolset() {
            return delegate.createTaskOwnedCheckpointStateToolset();
        }

        @Override
        public CheckpointStorageWorkerView toFileMergingStorage(FileMergingSnapshotManager manager,
                Environment environment) throws IOException {
            return delegate.toFileMergingStorage(manager, environment);
        }
    }

    private record Location(CheckpointStorageLocation delegate) implements CheckpointStorageLocation {

        @Override
        public CheckpointMetadataOutputStream createMetadataOutputStream() throws IOException {
            FaultPoints.reach(FaultPoints.COORDINATOR_BEFORE_METADATA);
            return new MetadataStream(delegate.createMetadataOutputStream());
        }

        @Override
        public void disposeOnFailure() throws IOException {
            delegate.disposeOnFailure();
        }

        @Override
        public CheckpointStorageLocationReference getLocationReference() {
            return delegate.getLocationReference();
        }

        @Override
        public CheckpointStateOutputStream createCheckpointStateOutputStream(CheckpointedStateScope scope)
                throws IOException {
            return delegate.createCheckpointStateOutputStream(scope);
        }

        @Override
        public boolean canFastDuplicate(StreamStateHandle handle, CheckpointedStateScope scope) throws IOException {
            return delegate.canFastDuplicate(handle, scope);
        }

        @Override
        public List<StreamStateHandle> duplicate(List<StreamStateHandle> handles, CheckpointedStateScope scope)
                throws IOException {
            return delegate.duplicate(handles, scope);
        }

        @Override
        public void reusePreviousStateHandle(Collection<? extends StreamStateHandle> handles) {
            delegate.reusePreviousStateHandle(handles);
        }

        @Override
        public boolean couldReuseStateHandle(StreamStateHandle handle) {
            return delegate.couldReuseStateHandle(handle);
        }
    }

    private static final class MetadataStream extends CheckpointMetadataOutputStream {

        private final CheckpointMetadataOutputStream delegate;

        MetadataStream(CheckpointMetadataOutputStream delegate) {
            this.delegate = delegate;
        }

        @Override
        public void write(int b) throws IOException {
            delegate.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            delegate.write(bytes, offset, length);
        }

        @Override
        public long getPos() throws IOException {
            return delegate.getPos();
        }

        @Override
        public void flush() throws IOException {
            delegate.flush();
        }

        @Override
        public void sync() throws IOException {
            delegate.sync();
        }

        @Override
        public CompletedCheckpointStorageLocation closeAndFinalizeCheckpoint() throws IOException {
            CompletedCheckpointStorageLocation completed = delegate.closeAndFinalizeCheckpoint();
            FaultPoints.reach(FaultPoints.COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY);
            return completed;
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }
    }
}
