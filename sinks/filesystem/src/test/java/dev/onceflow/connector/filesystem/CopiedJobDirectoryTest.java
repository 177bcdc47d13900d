package dev.onceflow.connector.filesystem;

import static dev.onceflow.connector.filesystem.WriterCalls.lines;
import static dev.onceflow.connector.filesystem.WriterCalls.writeAndPreCommit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rule 2PC-9 on local disk: a handle commits into the output directory of the sink that recovers
 * it. A job directory {@code jobs/a} (its output and its checkpoints) is copied to {@code jobs/b}
 * after a crash that left a pre-committed part file, as {@code cp -a} would, and the job resumed
 * there: the copy's output must hold the records, and the original must stay as it was.
 */
@SuppressWarnings("try") // TransactionalWriter.close() is declared to throw Exception by the SPI.
class CopiedJobDirectoryTest {

    private static final FileTransactionSerializer SERIALIZER = FileTransactionSerializer.INSTANCE;

    @TempDir
    Path root;

    private Path original;
    private Path copy;

    @BeforeEach
    void jobDirectories() {
        original = root.resolve("jobs/a/out");
        copy = root.resolve("jobs/b/out");
    }

    @Test
    void aCopiedJobDirectoryCommitsIntoItsOwnOutputAndLeavesTheOriginalAlone() throws Exception {
        List<Event> events = events(0, 50);
        // The handle as checkpoint 3 holds it, in the job directory beside the output.
        Path checkpoint = Files.createDirectories(root.resolve("jobs/a/checkpoints")).resolve("handle");
        Files.write(checkpoint, SERIALIZER.serialize(writeAndPreCommit(writer(original, fresh("a1")), 3, events)));
        // Crash after the pre-commit: the writer is dropped; its part file is durable and closed.
        Map<String, String> originalBefore = contents(original);
        copyTree(root.resolve("jobs/a"), root.resolve("jobs/b"));

        try (TransactionalWriter<Event, FileTransaction> resumed = writer(copy, restored("a2"))) {
            byte[] handle = Files.readAllBytes(root.resolve("jobs/b/checkpoints/handle"));
            resumed.recoverAndCommit(SERIALIZER.deserialize(SERIALIZER.version(), handle));
            resumed.abortLingering();
        }

        assertThat(contents(copy)).as("the copy's output holds exactly the pre-committed records")
                .isEqualTo(Map.of("part-0-3-0-a1", lines(events)));
        assertThat(contents(original)).as("the original directory is untouched").isEqualTo(originalBefore)
                .containsOnlyKeys(".part-0-3-0-a1.inprogress");
    }

    @Test
    void anAbsoluteHandleOfAnEarlierBuildCommitsIfItLiesUnderTheOutputDirectory() throws Exception {
        List<Event> events = events(0, 20);
        PartFile part = writeAndPreCommit(writer(original, fresh("a1")), 4, events).parts().get(0);
        byte[] earlierBuild = EarlierBuildHandles.versionTwo(List.of(absolute(original, part)));

        try (TransactionalWriter<Event, FileTransaction> resumed = writer(original, restored("a2"))) {
            resumed.recoverAndCommit(SERIALIZER.deserialize(2, earlierBuild));
            resumed.abortLingering();
        }

        assertThat(contents(original)).isEqualTo(Map.of("part-0-4-0-a1", lines(events)));
    }

    @Test
    void anAbsoluteHandleOfAnEarlierBuildOutsideTheOutputDirectoryFailsNamingBoth() throws Exception {
        List<Event> events = events(0, 20);
        PartFile part = writeAndPreCommit(writer(original, fresh("a1")), 5, events).parts().get(0);
        byte[] earlierBuild = EarlierBuildHandles.versionTwo(List.of(absolute(original, part)));
        copyTree(root.resolve("jobs/a"), root.resolve("jobs/b"));
        Map<String, String> originalBefore = contents(original);
        Map<String, String> copyBefore = contents(copy);

        try (TransactionalWriter<Event, FileTransaction> resumed = writer(copy, restored("a2"))) {
            assertThatThrownBy(() -> resumed.recoverAndCommit(SERIALIZER.deserialize(2, earlierBuild)))
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("part file file:" + original.resolve(".part-0-5-0-a1.inprogress")
                            + " of a restored transaction lies outside this sink's output directory file:" + copy + ":")
                    .hasMessageNotContaining("\n");
        }

        assertThat(contents(original)).as("nothing renamed in the directory the handle names").isEqualTo(originalBefore);
        assertThat(contents(copy)).as("nothing reported committed here").isEqualTo(copyBefore);
    }

    @Test
    void anOpenHandleOfAnEarlierBuildOutsideTheOutputDirectoryDeletesNothingThere() throws Exception {
        TransactionalWriter<Event, FileTransaction> crashed = writer(original, fresh("a1"));
        FileTransaction open = crashed.beginTransaction(6);
        crashed.write(open, events(0, 1).get(0));
        crashed.close();
        copyTree(root.resolve("jobs/a"), root.resolve("jobs/b"));
        byte[] earlierBuild = EarlierBuildHandles.versionTwo(List.of(absolute(original, open.parts().get(0))));

        try (TransactionalWriter<Event, FileTransaction> resumed = writer(copy, restored("a2"))) {
            resumed.recoverAndAbort(SERIALIZER.deserialize(2, earlierBuild));
            resumed.abortLingering();
        }

        assertThat(contents(original)).as("another directory's file is not this sink's to delete")
                .containsOnlyKeys(".part-0-6-0-a1.inprogress");
        assertThat(contents(copy)).as("its copy here is lingering, and deleted").isEmpty();
    }

    @Test
    void aRelativePathThatLeavesTheOutputDirectoryIsRefusedAsCorrupt() throws Exception {
        Files.createDirectories(original.resolveSibling("elsewhere"));
        Files.writeString(original.resolveSibling("elsewhere").resolve(".part-0-1-0-a1.inprogress"), "1,k,0,x\n");

        try (TransactionalWriter<Event, FileTransaction> resumed = writer(original, restored("a2"))) {
            assertThatThrownBy(() -> resumed.recoverAndCommit(FileTransaction.of(
                    "../elsewhere/.part-0-1-0-a1.inprogress", "../elsewhere/part-0-1-0-a1", 8)))
                    .isInstanceOf(IOException.class)
                    .hasMessage("corrupt file transaction: part file path '../elsewhere/.part-0-1-0-a1.inprogress' is "
                            + "neither a file name in the output directory nor absolute");
        }
        assertThat(contents(original.resolveSibling("elsewhere"))).containsOnlyKeys(".part-0-1-0-a1.inprogress");
    }

    private static TransactionalWriter<Event, FileTransaction> writer(Path output, SinkContext context)
            throws Exception {
        return FileSystemSink.builder(output.toString()).build().createWriter(context);
    }

    private static SinkContext fresh(String attempt) {
        return new SinkContext("job", "sink", 0, 1, 1, OptionalLong.empty(), attempt);
    }

    private static SinkContext restored(String attempt) {
        return new SinkContext("job", "sink", 0, 1, 1, OptionalLong.of(3), attempt);
    }

    /** The part file as a build before serializer version 3 recorded it: fully qualified. */
    private static PartFile absolute(Path output, PartFile part) {
        return new PartFile("file:" + output.resolve(part.inProgressPath()), "file:" + output.resolve(part.finalPath()),
                part.length());
    }

    private static List<Event> events(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> new Event(Integer.toString(i), "key-" + i % 3, "payload " + i, 0))
                .toList();
    }

    /** Every file of {@code directory}, hidden ones too, by name. */
    private static Map<String, String> contents(Path directory) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(directory)) {
            for (Path file : list.toList()) {
                files.put(file.getFileName().toString(), Files.readString(file));
            }
        }
        return files;
    }

    /** As {@code cp -a from to}: every file, hidden ones too. */
    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> tree = Files.walk(from)) {
            for (Path source : tree.toList()) {
                Files.copy(source, to.resolve(from.relativize(source)), StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
    }
}
