package dev.onceflow.connector.filesystem;

import static dev.onceflow.connector.filesystem.WriterCalls.lines;
import static dev.onceflow.connector.filesystem.WriterCalls.writeAndPreCommit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.testing.hdfs.HdfsExtension;
import dev.onceflow.testing.hdfs.HdfsTestCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.SafeModeAction;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The filesystem sink on a real HDFS, where what local disk does not have matters: leases held by
 * writers that died, truncation that completes in the background, rename that refuses an existing
 * target, and name node restarts. A "process" is a writer with an HDFS client of its own, so it
 * holds leases under its own name as a separate JVM would.
 */
@SuppressWarnings("try") // TransactionalWriter.close() is declared to throw Exception by the SPI.
class FileSystemSinkHdfsTest {

    @RegisterExtension
    static final HdfsExtension HDFS = new HdfsExtension(1);

    private HdfsTestCluster hdfs;
    private String out;

    @BeforeEach
    void directoryPerTest(TestInfo test) {
        hdfs = HDFS.cluster();
        out = hdfs.uri() + "/" + test.getTestMethod().orElseThrow().getName();
    }

    @Test
    void committedPartFilesHoldExactlyTheWrittenLinesAndCommitIsIdempotent() throws Exception {
        List<Event> events = events(0, 20_000);
        try (TransactionalWriter<Event, FileTransaction> writer = process(0, "a1", 200_000)) {
            writer.abortLingering();
            FileTransaction preCommitted = writeAndPreCommit(writer, 1, events);
            assertThat(visibleFiles()).as("2PC-1").isEmpty();

            writer.commit(preCommitted);
            // HDFS's rename answers false onto an existing name: a repeated commit must see that it happened.
            writer.commit(preCommitted);
            writer.recoverAndCommit(preCommitted);

            assertThat(preCommitted.parts()).hasSizeGreaterThan(1);
        }

        assertThat(allFiles()).allMatch(name -> name.startsWith("part-0-1-")).noneMatch(name -> name.startsWith("."));
        assertThat(committedText()).isEqualTo(lines(events));
    }

    @Test
    void aCommitFindingItsFinalFileAlreadyThereKeepsItAndDropsTheInProgressCopy() throws Exception {
        List<Event> events = events(0, 1000);
        try (TransactionalWriter<Event, FileTransaction> writer = process(0, "a1", 0)) {
            FileTransaction preCommitted = writeAndPreCommit(writer, 4, events);
            PartFile part = preCommitted.parts().get(0);
            // The state a commit interrupted between a copy and a delete would leave: HDFS's rename
            // answers false onto the existing name, where local disk's would overwrite it.
            copy(new Path(part.inProgressPath()), new Path(part.finalPath()));
            assertThat(allFiles()).containsExactly(".part-0-4-0-a1.inprogress", "part-0-4-0-a1");

            writer.commit(preCommitted);
        }

        assertThat(allFiles()).containsExactly("part-0-4-0-a1");
        assertThat(committedText()).isEqualTo(lines(events));
    }

    @Test
    void aCommitFindingAnotherFileOfTheSameLengthUnderItsFinalNameFailsAndKeepsItsOwnCopy() throws Exception {
        List<Event> events = events(0, 1000);
        byte[] theirs;
        try (TransactionalWriter<Event, FileTransaction> writer = process(0, "a1", 0)) {
            FileTransaction preCommitted = writeAndPreCommit(writer, 4, events);
            PartFile part = preCommitted.parts().get(0);
            // A new job in the same directory whose random attempt id clashed: same name, same length.
            theirs = new byte[(int) part.length()];
            Arrays.fill(theirs, (byte) 'x');
            theirs[theirs.length - 1] = '\n';
            try (FSDataOutputStream other = hdfs.fileSystem().create(new Path(part.finalPath()))) {
                other.write(theirs);
            }

            assertThatThrownBy(() -> writer.commit(preCommitted)).isInstanceOf(IOException.class)
                    .hasMessageContaining("final part file " + part.finalPath() + " exists with the pre-committed "
                            + "length but other bytes than in-progress part file " + part.inProgressPath()
                            + ", which is kept");
        }

        assertThat(allFiles()).containsExactly(".part-0-4-0-a1.inprogress", "part-0-4-0-a1");
        assertThat(committedText()).isEqualTo(new String(theirs, StandardCharsets.UTF_8));
        assertThat(text(new Path(out, ".part-0-4-0-a1.inprogress"))).isEqualTo(lines(events));
    }

    @Test
    void recoveryTakesOverTheLeaseOfADeadWriterAndTruncatesToThePreCommittedLength() throws Exception {
        List<Event> events = events(0, 1000);
        TransactionalWriter<Event, FileTransaction> first = process(0, "a1", 0);
        FileTransaction preCommitted = writeAndPreCommit(first, 7, events);
        Path inProgress = new Path(preCommitted.parts().get(0).inProgressPath());
        // The cut falls inside a block, so HDFS truncates in the background (truncate answers
        // false) and commit must wait for it before the rename.
        long blockSize = hdfs.fileSystem().getFileStatus(inProgress).getBlockSize();
        assertThat(preCommitted.parts().get(0).length() % blockSize).isNotZero();
        // Another writer appended bytes no checkpoint holds, made them durable, and died holding the lease.
        FileSystem dead = hdfs.newClient();
        FSDataOutputStream appended = dead.append(inProgress);
        appended.write("99,key-0,0,not committed\n".getBytes(StandardCharsets.UTF_8));
        appended.hflush();
        assertThat(hdfs.fileSystem().isFileClosed(inProgress)).isFalse();

        try (TransactionalWriter<Event, FileTransaction> recovered = process(0, "a2", 0)) {
            recovered.recoverAndCommit(preCommitted);
            recovered.abortLingering();
        }

        assertThat(allFiles()).containsExactly("part-0-7-0-a1");
        assertThat(committedText()).isEqualTo(lines(events));
        // The dead writer is fenced: its lease is gone.
        assertThatThrownBy(() -> {
            appended.write(new byte[] {'x'});
            appended.hflush();
            appended.close();
        }).isInstanceOf(IOException.class);
    }

    @Test
    void abortLingeringDeletesFilesADeadWriterStillHoldsOpen() throws Exception {
        TransactionalWriter<Event, FileTransaction> crashed = process(0, "a1", 0);
        FileTransaction open = crashed.beginTransaction(3);
        for (Event event : events(0, 100)) {
            crashed.write(open, event);
        }
        // Crash: nothing is closed; the file stays open under the dead writer's lease.
        assertThat(allFiles()).containsExactly(".part-0-3-0-a1.inprogress");

        try (TransactionalWriter<Event, FileTransaction> recovered = process(0, "a2", 0)) {
            recovered.recoverAndAbort(open);
            recovered.abortLingering();
        }

        assertThat(allFiles()).isEmpty();
    }

    @Test
    void aNameNodeRestartBetweenPreCommitAndCommitIsRiddenOut() throws Exception {
        List<Event> events = events(0, 500);
        try (TransactionalWriter<Event, FileTransaction> writer = process(0, "a1", 0)) {
            FileTransaction preCommitted = writeAndPreCommit(writer, 2, events);

            hdfs.restartNameNode();

            writer.commit(preCommitted);
        }

        assertThat(allFiles()).containsExactly("part-0-2-0-a1");
        assertThat(committedText()).isEqualTo(lines(events));
    }

    @Test
    void commitWaitsWhileTheNameNodeIsInSafeMode() throws Exception {
        List<Event> events = events(0, 100);
        try (TransactionalWriter<Event, FileTransaction> writer = process(0, "a1", 0)) {
            FileTransaction preCommitted = writeAndPreCommit(writer, 5, events);
            hdfs.fileSystem().setSafeMode(SafeModeAction.ENTER);
            CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> {
                try {
                    writer.commit(preCommitted);
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            });
            try {
                await("the commit waits, neither failing nor renaming").during(Duration.ofSeconds(1))
                        .atMost(Duration.ofSeconds(2)).until(() -> !commit.isDone() && visibleFiles().isEmpty());
            } finally {
                hdfs.fileSystem().setSafeMode(SafeModeAction.LEAVE);
            }
            commit.get(30, TimeUnit.SECONDS);
        }

        assertThat(allFiles()).containsExactly("part-0-5-0-a1");
        assertThat(committedText()).isEqualTo(lines(events));
    }

    @Test
    void aRestoredHandleCommitsInACopiedOutputDirectoryAndElseWhereItWasWritten() throws Exception {
        // Rule 2PC-11 on HDFS: output directories on one name node, handles with hdfs:// URIs.
        List<Event> events = events(0, 300);
        String original = out + "/a";
        byte[] handle;
        try (TransactionalWriter<Event, FileTransaction> crashed = process(original, "a1")) {
            handle = FileTransactionSerializer.INSTANCE.serialize(writeAndPreCommit(crashed, 3, events));
        }
        FileTransaction restored = FileTransactionSerializer.INSTANCE.deserialize(
                FileTransactionSerializer.INSTANCE.version(), handle);
        DistributedFileSystem fs = hdfs.fileSystem();
        assertThat(FileUtil.copy(fs, new Path(original), fs, new Path(out + "/b"), false, hdfs.configuration())).isTrue();

        try (TransactionalWriter<Event, FileTransaction> copied = process(out + "/b", "a2")) {
            copied.recoverAndCommit(restored);
            copied.abortLingering();
        }
        assertThat(files(out + "/b")).containsExactly("part-0-3-0-a1");
        assertThat(text(new Path(out + "/b/part-0-3-0-a1"))).isEqualTo(lines(events));
        assertThat(files(original)).as("the original is untouched").containsExactly(".part-0-3-0-a1.inprogress");

        // The sink's path changed to c, where nothing was copied: the files are committed where written.
        try (TransactionalWriter<Event, FileTransaction> moved = process(out + "/c", "a3")) {
            moved.recoverAndCommit(restored);
            moved.abortLingering();
        }
        assertThat(files(original)).containsExactly("part-0-3-0-a1");
        assertThat(text(new Path(original, "part-0-3-0-a1"))).isEqualTo(lines(events));
        assertThat(files(out + "/c")).isEmpty();
    }

    private List<String> files(String directory) throws IOException {
        return Arrays.stream(hdfs.fileSystem().listStatus(new Path(directory))).map(s -> s.getPath().getName()).sorted()
                .toList();
    }

    /** A writer of subtask 0 into {@code directory}, restoring checkpoint 3 unless it is attempt a1. */
    private TransactionalWriter<Event, FileTransaction> process(String directory, String attempt) throws Exception {
        return FileSystemSink.builder(directory).configuration(hdfs.configuration()).build()
                .createWriter(new SinkContext("job", "sink", 0, 1, 1,
                        attempt.equals("a1") ? OptionalLong.empty() : OptionalLong.of(3), attempt));
    }

    private void copy(Path from, Path to) throws IOException {
        DistributedFileSystem fs = hdfs.fileSystem();
        try (var in = fs.open(from); FSDataOutputStream copy = fs.create(to, false)) {
            in.transferTo(copy);
        }
    }

    /** A writer; each has an HDFS client of its own, as a separate process would. */
    private TransactionalWriter<Event, FileTransaction> process(int subtask, String attempt, long maxPartBytes)
            throws Exception {
        FileSystemSink.Builder builder = FileSystemSink.builder(out).configuration(hdfs.configuration());
        if (maxPartBytes > 0) {
            builder.maxPartBytes(maxPartBytes);
        }
        return builder.build().createWriter(new SinkContext("job", "sink", subtask, 1, 1,
                attempt.equals("a1") ? OptionalLong.empty() : OptionalLong.of(1), attempt));
    }

    private static List<Event> events(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> new Event(Integer.toString(i), "key-" + i % 3,
                "payload " + i, 0)).toList();
    }

    private List<String> allFiles() throws IOException {
        DistributedFileSystem fs = hdfs.fileSystem();
        Path dir = new Path(out);
        if (!fs.exists(dir)) {
            return List.of();
        }
        return Arrays.stream(fs.listStatus(dir)).map(s -> s.getPath().getName()).sorted().toList();
    }

    private List<String> visibleFiles() throws IOException {
        return allFiles().stream().filter(name -> !name.startsWith(".")).toList();
    }

    /** Visible files' contents in name order; part numbers below 10 sort in part order. */
    private String committedText() throws IOException {
        StringBuilder text = new StringBuilder();
        for (String name : visibleFiles()) {
            text.append(text(new Path(out, name)));
        }
        return text.toString();
    }

    private String text(Path file) throws IOException {
        DistributedFileSystem fs = hdfs.fileSystem();
        byte[] bytes = new byte[(int) fs.getFileStatus(file).getLen()];
        try (var in = fs.open(file)) {
            in.readFully(0, bytes);
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
