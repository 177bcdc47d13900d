package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointMetadata;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.spi.record.Event;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incremental RocksDB checkpoints end to end: a job at parallelism 2 fails after its first
 * commits; its retained checkpoints share SST files instead of uploading them again, and the
 * shared directory holds exactly the files they list; the latest restores at parallelism 3 and
 * the output is exactly once with every key's count intact.
 */
class IncrementalCheckpointJobTest {

    private static final AtomicBoolean FAILED = new AtomicBoolean();
    private static final long ROWS = 16_000;
    /** What the checksummed envelope of a shared file adds to the file's own bytes (header, CRC). */
    private static final long ENVELOPE_BYTES = 4 + 4 + 8 + 4;

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        FAILED.set(false);
    }

    /**
     * Fails once, at the first hundredth id after a part file was committed and 12 checkpoints
     * completed: by then RocksDB has compacted its first files away (a compaction every 4 flushes,
     * one flush per checkpoint), so pruning had files to delete.
     */
    private static Event failOnceAfterCommits(Event event, Path output, Path jobDirectory) throws Exception {
        if (!FAILED.get() && Long.parseLong(event.id()) % 100 == 0 && CommittedOutput.hasCommittedFile(output)
                && completed(jobDirectory) >= 12 && FAILED.compareAndSet(false, true)) {
            throw new IllegalStateException("injected failure at id " + event.id());
        }
        return event;
    }

    /** The id of the newest completed checkpoint (ids count up from 1 in the first attempt). */
    private static long completed(Path jobDirectory) throws Exception {
        if (!Files.isDirectory(jobDirectory)) {
            return 0;
        }
        try (Stream<Path> dirs = Files.list(jobDirectory)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("chk-"))
                    .filter(d -> Files.exists(d.resolve("_metadata")))
                    .mapToLong(d -> Long.parseLong(d.getFileName().toString().substring(4))).max().orElse(0);
        }
    }

    @Test
    void retainedIncrementalCheckpointsShareFilesAndTheLatestRestoresAtAnotherParallelism() throws Exception {
        Path checkpoints = dir.resolve("checkpoints");
        Path output = dir.resolve("output");
        Path jobDirectory = checkpoints.resolve("incremental");
        KeyedCountJob first = new KeyedCountJob(checkpoints, output, ROWS).parallelism(2).rowsPerSecond(4_000)
                .retained(3).restart(RestartStrategy.none())
                .map(event -> failOnceAfterCommits(event, output, jobDirectory));
        assertThatThrownBy(() -> first.execute("incremental")).isInstanceOf(JobExecutionException.class)
                .hasMessageContaining("injected failure");

        CheckpointStorage storage = new CheckpointStorage(CheckpointLocation.of(jobDirectory));
        List<CheckpointStorage.Listing> retained = storage.list().stream()
                .filter(l -> l.metadata() != null).toList();
        assertThat(retained).as("retained completed checkpoints").hasSizeBetween(2, 3);
        Set<String> distinct = new HashSet<>();
        List<String> listed = new ArrayList<>();
        for (CheckpointStorage.Listing checkpoint : retained) {
            for (CheckpointMetadata.TaskStateRef task : checkpoint.metadata().tasks()) {
                if (task.operatorUids().contains("count")) {
                    assertThat(task.sharedFiles()).as("SST files of %s in %s", task.file(), checkpoint.directory())
                            .isNotEmpty();
                }
                listed.addAll(task.sharedFiles());
                distinct.addAll(task.sharedFiles());
            }
        }
        assertThat(distinct.size()).as("files uploaded once and listed by several checkpoints")
                .isLessThan(listed.size());
        // Sizes: a checkpoint wrote its state files and the shared files it uploaded itself; a
        // restore of it reads its state files and every shared file it lists.
        int smallerThanFull = 0;
        for (CheckpointStorage.Listing checkpoint : retained) {
            long written = 0;
            long full = 0;
            for (CheckpointMetadata.TaskStateRef task : checkpoint.metadata().tasks()) {
                written += task.length();
                full += task.length();
                for (String shared : task.sharedFiles()) {
                    long size = Files.size(jobDirectory.resolve(shared)) - ENVELOPE_BYTES;
                    full += size;
                    if (uploader(shared) == checkpoint.id()) {
                        written += size;
                    }
                }
            }
            assertThat(checkpoint.metadata().stateSize()).as("bytes %s wrote", checkpoint.directory()).isEqualTo(written);
            assertThat(checkpoint.metadata().fullStateSize()).as("bytes a restore of %s reads", checkpoint.directory())
                    .isEqualTo(full);
            smallerThanFull += written < full ? 1 : 0;
        }
        // A checkpoint right after a compaction may upload every file it lists; two in a row cannot.
        assertThat(smallerThanFull).as("retained checkpoints that wrote less than a restore of them reads")
                .isPositive();
        long newest = retained.stream().mapToLong(CheckpointStorage.Listing::id).max().orElseThrow();
        // Files a checkpoint still running at the failure uploaded are garbage until a later one completes.
        Set<String> onDisk = sharedOnDisk(jobDirectory);
        onDisk.removeIf(file -> uploader(file) > newest);
        assertThat(onDisk).as("shared files: exactly those the retained checkpoints list").isEqualTo(distinct);
        assertThat(onDisk).as("the first checkpoint's files, compacted away since, are deleted")
                .noneMatch(file -> file.startsWith("shared/1-"));

        JobResult second = new KeyedCountJob(checkpoints, output, ROWS).parallelism(3)
                .restore(RestoreSetting.latest()).execute("incremental");

        assertThat(second.status()).isEqualTo(JobResult.Status.FINISHED);
        CommittedOutput out = CommittedOutput.read(output);
        assertThat(out.lost(ROWS)).as("lost ids; %s", out.summary(ROWS)).isEmpty();
        assertThat(out.duplicated()).as("duplicated ids; %s", out.summary(ROWS)).isEmpty();
        assertThat(out.wrongCounts(ROWS, KeyedCountJob.KEYS))
                .as("keyed state moved from 2 RocksDB instances to 3 with its key groups").isEmpty();
        assertThat(out.attempts).as("the first run committed before it failed").hasSize(2);

        Set<String> listedAtTheEnd = new HashSet<>();
        for (CheckpointStorage.Listing checkpoint : storage.list()) {
            if (checkpoint.metadata() != null) {
                checkpoint.metadata().tasks().forEach(task -> listedAtTheEnd.addAll(task.sharedFiles()));
            }
        }
        assertThat(sharedOnDisk(jobDirectory)).as("after the final checkpoint: no garbage left, also not the "
                + "files of the checkpoint the failure interrupted").isEqualTo(listedAtTheEnd);
    }

    private static long uploader(String sharedFile) {
        String entry = sharedFile.split("/")[1];
        return Long.parseLong(entry.substring(0, entry.indexOf('-')));
    }

    private static Set<String> sharedOnDisk(Path jobDirectory) throws Exception {
        Set<String> onDisk = new HashSet<>();
        try (Stream<Path> entries = Files.list(jobDirectory.resolve("shared"))) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                try (Stream<Path> files = Files.list(entry)) {
                    files.forEach(f -> onDisk.add("shared/" + entry.getFileName() + "/" + f.getFileName()));
                }
            }
        }
        return onDisk;
    }
}
