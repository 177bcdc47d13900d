package dev.onceflow.connector.filesystem;

import static dev.onceflow.connector.filesystem.WriterCalls.lines;
import static dev.onceflow.connector.filesystem.WriterCalls.writeAndPreCommit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rule 2PC-11 on local disk: a restored handle commits where its files are, and aborts only in the
 * sink's own output directory. A job directory {@code jobs/a} (output and checkpoints) is crashed
 * with a pre-committed and an open transaction, then copied to {@code jobs/b} as {@code cp -a}
 * would and resumed there; or resumed with its sink's path changed, as a savepoint restored into a
 * new path is. When a case fails, check how the writer locates a restored handle's files.
 */
@SuppressWarnings("try") // TransactionalWriter.close() is declared to throw Exception by the SPI.
class CopiedJobDirectoryTest {

    private static final FileTransactionSerializer SERIALIZER = FileTransactionSerializer.INSTANCE;

    @TempDir
    Path root;

    @Test
    void aCopiedJobDirectoryCommitsIntoItsOwnOutputAndLeavesTheOriginalAlone() throws Exception {
        List<Event> events = events(0, 50);
        Crash crash = crash(root.resolve("jobs/a"), events);
        Map<String, String> originalBefore = contents(root.resolve("jobs/a"));
        copyTree(root.resolve("jobs/a"), root.resolve("jobs/b"));

        resume(root.resolve("jobs/b"));

        assertThat(contents(root.resolve("jobs/b/out"))).as("the copy's output holds exactly the pre-committed records")
                .isEqualTo(Map.of("part-0-3-0-a1", hex(lines(events))));
        assertThat(contents(root.resolve("jobs/a"))).as("the original job directory is byte for byte as it was")
                .isEqualTo(originalBefore)
                .containsKeys("out/.part-0-3-0-a1.inprogress", "out/.part-0-4-0-a1.inprogress");
        assertThat(crash.preCommitted().directory()).isEqualTo("file:" + root.resolve("jobs/a/out"));
    }

    @Test
    void aCopyTakenAfterTheOriginalCommittedFindsItsCopyCommittedAlready() throws Exception {
        List<Event> events = events(0, 30);
        Crash crash = crash(root.resolve("jobs/a"), events);
        try (TransactionalWriter<Event, FileTransaction> original = writer(root.resolve("jobs/a/out"), "a2")) {
            original.recoverAndCommit(crash.preCommitted());
        }
        copyTree(root.resolve("jobs/a"), root.resolve("jobs/b"));
        Map<String, String> originalBefore = contents(root.resolve("jobs/a"));

        resume(root.resolve("jobs/b"));

        assertThat(contents(root.resolve("jobs/b/out"))).isEqualTo(Map.of("part-0-3-0-a1", hex(lines(events))));
        assertThat(contents(root.resolve("jobs/a"))).isEqualTo(originalBefore);
    }

    @Test
    void aSavepointRestoredIntoAnotherPathCommitsWhereItsFilesWereWritten() throws Exception {
        List<Event> events = events(0, 40);
        crash(root.resolve("jobs/a"), events);
        String openFile = contents(root.resolve("jobs/a/out")).get(".part-0-4-0-a1.inprogress");
        // The job file's path changes from jobs/a/out to jobs/a/new-out; the checkpoints stay.
        Path newOutput = root.resolve("jobs/a/new-out");

        resume(root.resolve("jobs/a"), newOutput);
        resume(root.resolve("jobs/a"), newOutput); // 2PC-4: restored twice, committed once

        assertThat(contents(root.resolve("jobs/a/out"))).as("committed where it was written; the restored open "
                + "transaction's file there is not this sink's to delete")
                .isEqualTo(Map.of("part-0-3-0-a1", hex(lines(events)), ".part-0-4-0-a1.inprogress", openFile));
        assertThat(contents(newOutput)).isEmpty();
    }

    @Test
    void aHandleWhoseFilesAreNeitherHereNorWhereWrittenFailsNamingBoth() throws Exception {
        crash(root.resolve("jobs/a"), events(0, 10));
        Files.delete(root.resolve("jobs/a/out/.part-0-3-0-a1.inprogress"));
        Path newOutput = Files.createDirectories(root.resolve("jobs/b/out"));

        try (TransactionalWriter<Event, FileTransaction> resumed = writer(newOutput, "a2")) {
            assertThatThrownBy(() -> resumed.recoverAndCommit(checkpointedHandle(root.resolve("jobs/a"))))
                    .isInstanceOf(IOException.class)
                    .hasMessage("committed data missing: neither the in-progress part file file:"
                            + root.resolve("jobs/a/out/.part-0-3-0-a1.inprogress") + " nor the final part file file:"
                            + root.resolve("jobs/a/out/part-0-3-0-a1") + " exists, nor either of them in this sink's "
                            + "output directory file:" + newOutput + ", but " + bytes(events(0, 10))
                            + " bytes were pre-committed");
        }
    }

    @Test
    void aHandleWrittenOnAnotherFileSystemAndNotCopiedHereFailsNamingThePathToSet() throws Exception {
        FileTransaction onHdfs = FileTransaction.of("hdfs://nn:8020/out/.part-0-3-0-a1.inprogress",
                "hdfs://nn:8020/out/part-0-3-0-a1", 10);

        try (TransactionalWriter<Event, FileTransaction> resumed = writer(root.resolve("out"), "a2")) {
            assertThatThrownBy(() -> resumed.recoverAndCommit(onHdfs)).isInstanceOf(IOException.class)
                    .hasMessage("the restored transaction hdfs://nn:8020/out/.part-0-3-0-a1.inprogress was written on "
                            + "another file system than this sink's output directory file:" + root.resolve("out")
                            + " and is not in it; set the sink's path back to hdfs://nn:8020/out to commit it");
        }
    }

    @Test
    void aHandleOfTheBuildBeforeDirectoriesCommitsIntoTheCopyToo() throws Exception {
        List<Event> events = events(0, 20);
        Crash crash = crash(root.resolve("jobs/a"), events);
        // The same handle as serializer version 2 wrote it, byte by byte: paths only, no directory.
        Files.write(root.resolve("jobs/a/checkpoints/handle"), versionTwo(crash.preCommitted().parts()));
        Map<String, String> originalBefore = contents(root.resolve("jobs/a"));
        copyTree(root.resolve("jobs/a"), root.resolve("jobs/b"));

        try (TransactionalWriter<Event, FileTransaction> resumed = writer(root.resolve("jobs/b/out"), "a2")) {
            resumed.recoverAndCommit(SERIALIZER.deserialize(2,
                    Files.readAllBytes(root.resolve("jobs/b/checkpoints/handle"))));
            resumed.abortLingering();
        }

        assertThat(contents(root.resolve("jobs/b/out"))).isEqualTo(Map.of("part-0-3-0-a1", hex(lines(events))));
        assertThat(contents(root.resolve("jobs/a"))).isEqualTo(originalBefore);
    }

    /** The handles a crash left in a job's checkpoint: one pre-committed, one open. */
    private record Crash(FileTransaction preCommitted, FileTransaction open) {
    }

    /**
     * A job in {@code jobDirectory} writing to {@code out}: pre-commits checkpoint 3 ({@code
     * events}), writes one record of checkpoint 4, and dies. The checkpoint (here: the two handles,
     * serialized) is in {@code checkpoints}, beside the output, as a job file's relative paths put it.
     */
    private Crash crash(Path jobDirectory, List<Event> events) throws Exception {
        TransactionalWriter<Event, FileTransaction> crashed = writer(jobDirectory.resolve("out"), "a1");
        FileTransaction preCommitted = writeAndPreCommit(crashed, 3, events);
        FileTransaction open = crashed.beginTransaction(4);
        crashed.write(open, events(100, 101).get(0));
        crashed.close(); // commits and aborts nothing (2PC-2); the open transaction's file stays
        Path checkpoints = Files.createDirectories(jobDirectory.resolve("checkpoints"));
        Files.write(checkpoints.resolve("handle"), SERIALIZER.serialize(preCommitted));
        Files.write(checkpoints.resolve("open-handle"), SERIALIZER.serialize(open));
        return new Crash(preCommitted, open);
    }

    /** Resumes the job of {@code jobDirectory} as it is configured: output in {@code out}. */
    private void resume(Path jobDirectory) throws Exception {
        resume(jobDirectory, jobDirectory.resolve("out"));
    }

    /** What the runtime does on restore (2PC intro, step 1 and 2), in a new process with attempt a2. */
    private void resume(Path jobDirectory, Path output) throws Exception {
        try (TransactionalWriter<Event, FileTransaction> resumed = writer(output, "a2")) {
            resumed.recoverAndCommit(checkpointedHandle(jobDirectory));
            resumed.recoverAndAbort(SERIALIZER.deserialize(SERIALIZER.version(),
                    Files.readAllBytes(jobDirectory.resolve("checkpoints/open-handle"))));
            resumed.abortLingering();
        }
    }

    private static FileTransaction checkpointedHandle(Path jobDirectory) throws IOException {
        return SERIALIZER.deserialize(SERIALIZER.version(), Files.readAllBytes(jobDirectory.resolve("checkpoints/handle")));
    }

    private static TransactionalWriter<Event, FileTransaction> writer(Path output, String attempt) throws Exception {
        return FileSystemSink.builder(output.toString()).build()
                .createWriter(new SinkContext("job", "sink", 0, 1, 1, OptionalLong.of(3), attempt));
    }

    private static List<Event> events(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> new Event(Integer.toString(i), "key-" + i % 3, "payload " + i, 0))
                .toList();
    }

    private static long bytes(List<Event> events) {
        return lines(events).getBytes(StandardCharsets.UTF_8).length;
    }

    private static String hex(String text) {
        return HexFormat.of().formatHex(text.getBytes(StandardCharsets.UTF_8));
    }

    /** A handle as serializer version 2 wrote it: the count, then each part's two paths and length. */
    private static byte[] versionTwo(List<PartFile> parts) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(parts.size());
            for (PartFile part : parts) {
                for (String path : List.of(part.inProgressPath(), part.finalPath())) {
                    byte[] utf8 = path.getBytes(StandardCharsets.UTF_8);
                    out.writeInt(utf8.length);
                    out.write(utf8);
                }
                out.writeLong(part.length());
            }
        }
        return bytes.toByteArray();
    }

    /** Every file under {@code directory}, hidden ones too, by relative path: its bytes in hex. */
    private static Map<String, String> contents(Path directory) throws IOException {
        Map<String, String> files = new TreeMap<>();
        if (!Files.exists(directory)) {
            return files;
        }
        try (Stream<Path> tree = Files.walk(directory)) {
            for (Path file : tree.filter(Files::isRegularFile).toList()) {
                files.put(directory.relativize(file).toString(), HexFormat.of().formatHex(Files.readAllBytes(file)));
            }
        }
        return files;
    }

    /** {@code cp -a from to}, as the user did. */
    private static void copyTree(Path from, Path to) throws IOException, InterruptedException {
        Process cp = new ProcessBuilder("cp", "-a", from.toString(), to.toString()).inheritIO().start();
        assertThat(cp.waitFor()).as("cp -a %s %s", from, to).isZero();
    }
}
