package dev.onceflow.connector.filesystem;

import static dev.onceflow.connector.filesystem.WriterCalls.lines;
import static dev.onceflow.connector.filesystem.WriterCalls.writeAndPreCommit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two-phase commit rules (2PC-1 to 2PC-8 in docs/spec.md) for the filesystem sink, driven
 * through the SPI on the real local file system, with "crashes" simulated by dropping a writer
 * without closing it and recovering with a new one from the serialized handle.
 */
@SuppressWarnings("try") // TransactionalWriter.close() is declared to throw Exception by the SPI.
class FileSystemSinkTest {

    @TempDir
    Path dir;

    @Test
    void committedPartFileHoldsExactlyTheWrittenLines() throws Exception {
        List<Event> events = events(0, 3);
        try (TransactionalWriter<Event, FileTransaction> writer = writer(0, 1, "a1")) {
            writer.abortLingering();
            FileTransaction open = writer.beginTransaction(1);
            for (Event event : events) {
                writer.write(open, event);
            }
            FileTransaction preCommitted = writer.preCommit(open);

            assertThat(visibleFiles()).as("2PC-1: nothing visible before commit").isEmpty();
            assertThat(preCommitted.length()).isEqualTo(bytes(events));
            assertThat(preCommitted.parts().get(0).inProgressPath()).isEqualTo("file:" + dir.resolve(".part-0-1-0-a1.inprogress"));
            assertThat(preCommitted.parts().get(0).finalPath()).isEqualTo("file:" + dir.resolve("part-0-1-0-a1"));

            writer.commit(preCommitted);
        }

        assertThat(allFiles()).containsExactly("part-0-1-0-a1");
        assertThat(Files.readString(dir.resolve("part-0-1-0-a1"))).isEqualTo(lines(events));
    }

    @Test
    void commitIsIdempotent() throws Exception {
        try (TransactionalWriter<Event, FileTransaction> writer = writer(0, 1, "a1")) {
            FileTransaction preCommitted = writeAndPreCommit(writer, 7, events(0, 5));
            writer.commit(preCommitted);

            writer.commit(preCommitted);
            writer.recoverAndCommit(preCommitted);
        }

        assertThat(allFiles()).containsExactly("part-0-7-0-a1");
        assertThat(Files.readString(dir.resolve("part-0-7-0-a1"))).isEqualTo(lines(events(0, 5)));
    }

    @Test
    void preCommittedTransactionSurvivesTheWriterAndIsCommittedOnRecovery() throws Exception {
        TransactionalWriter<Event, FileTransaction> crashed = writer(0, 1, "a1");
        byte[] handle = FileTransactionSerializer.INSTANCE.serialize(writeAndPreCommit(crashed, 3, events(0, 100)));
        // The open transaction of the next checkpoint dies with the process, half written.
        crashed.write(crashed.beginTransaction(4), events(100, 101).get(0));
        // Crash: the writer is dropped without close(); nothing else is called.

        try (TransactionalWriter<Event, FileTransaction> recovered = writer(restoredContext(0, 1, 1, 3, "a2"))) {
            recovered.recoverAndCommit(FileTransactionSerializer.INSTANCE.deserialize(FileTransactionSerializer.INSTANCE.version(), handle));
            recovered.abortLingering();
        }

        assertThat(allFiles()).containsExactly("part-0-3-0-a1");
        assertThat(Files.readString(dir.resolve("part-0-3-0-a1"))).isEqualTo(lines(events(0, 100)));
    }

    @Test
    void closeKeepsPreCommittedTransactionsForRecovery() throws Exception {
        FileTransaction preCommitted;
        try (TransactionalWriter<Event, FileTransaction> writer = writer(0, 1, "a1")) {
            preCommitted = writeAndPreCommit(writer, 2, events(0, 4));
        }
        assertThat(allFiles()).containsExactly(".part-0-2-0-a1.inprogress");

        try (TransactionalWriter<Event, FileTransaction> recovered = writer(restoredContext(0, 1, 1, 2, "a2"))) {
            recovered.recoverAndCommit(preCommitted);
        }
        assertThat(Files.readString(dir.resolve("part-0-2-0-a1"))).isEqualTo(lines(events(0, 4)));
    }

    @Test
    void recoverAndCommitOfACommittedTransactionIsANoOp() throws Exception {
        FileTransaction preCommitted;
        try (TransactionalWriter<Event, FileTransaction> writer = writer(0, 1, "a1")) {
            preCommitted = writeAndPreCommit(writer, 5, events(0, 10));
            // Committed, then the process died before checkpoint 6 recorded it.
            writer.commit(preCommitted);
        }

        try (TransactionalWriter<Event, FileTransaction> recovered = writer(restoredContext(0, 1, 1, 5, "a2"))) {
            recovered.recoverAndCommit(preCommitted);
            recovered.abortLingering();
        }

        assertThat(allFiles()).containsExactly("part-0-5-0-a1");
        assertThat(Files.readString(dir.resolve("part-0-5-0-a1"))).isEqualTo(lines(events(0, 10)));
    }

    @Test
    void bytesAfterThePreCommittedLengthAreTruncatedBeforeCommit() throws Exception {
        try (TransactionalWriter<Event, FileTransaction> writer = writer(0, 1, "a1")) {
            FileTransaction preCommitted = writeAndPreCommit(writer, 1, events(0, 3));
            Files.writeString(dir.resolve(".part-0-1-0-a1.inprogress"), "99,key-0,0,not committed\n",
                    StandardOpenOption.APPEND);

            writer.recoverAndCommit(preCommitted);
        }

        assertThat(Files.readString(dir.resolve("part-0-1-0-a1"))).isEqualTo(lines(events(0, 3)));
    }

    @Test
    void inProgressFileShorterThanPreCommittedIsReportedAsDataLoss() throws Exception {
        try (TransactionalWriter<Event, FileTransaction> writer = writer(0, 1, "a1")) {
            FileTransaction preCommitted = writeAndPreCommit(writer, 1, events(0, 3));
            try (RandomAccessFile file = new RandomAccessFile(dir.resolve(".part-0-1-0-a1.inprogress").toFile(), "rw")) {
                file.setLength(preCommitted.length() - 5);
            }

            assertThatThrownBy(() -> writer.commit(preCommitted))
                    .isInstanceOf(IOException.class)
                    .hasMessage("data lost: in-progress part file " + preCommitted.parts().get(0).inProgressPath() + " has "
                            + (preCommitted.length() - 5) + " bytes but " + preCommitted.length() + " were pre-committed");
        }
        assertThat(visibleFiles()).isEmpty();
    }

    @Test
    void missingCommittedDataFailsNamingBothFiles() throws Exception {
        try (TransactionalWriter<Event, FileTransaction> writer = writer(0, 1, "a1")) {
            FileTransaction preCommitted = writeAndPreCommit(writer, 1, events(0, 3));
            Files.delete(dir.resolve(".part-0-1-0-a1.inprogress"));

            assertThatThrownBy(() -> writer.recoverAndCommit(preCommitted))
                    .isInstanceOf(IOException.class)
                    .hasMessage("committed data missing: neither the in-progress part file "
                            + preCommitted.parts().get(0).inProgressPath() + " nor the final part file " + preCommitted.parts().get(0).finalPath()
                            + " exists, but " + preCommitted.length() + " bytes were pre-committed");
        }
    }

    @Test
    void emptyTransactionCreatesNoFile() throws Exception {
        try (TransactionalWriter<Event, FileTransaction> writer = writer(0, 1, "a1")) {
            FileTransaction preCommitted = writer.preCommit(writer.beginTransaction(1));
            assertThat(preCommitted.length()).isZero();

            writer.commit(preCommitted);
            writer.recoverAndCommit(preCommitted);
        }

        assertThat(allFiles()).isEmpty();
    }

    @Test
    void abortDeletesTheInProgressFileAndToleratesItsAbsence() throws Exception {
        try (TransactionalWriter<Event, FileTransaction> writer = writer(0, 1, "a1")) {
            FileTransaction open = writer.beginTransaction(1);
            writer.write(open, events(0, 1).get(0));
            assertThat(allFiles()).containsExactly(".part-0-1-0-a1.inprogress");

            writer.abort(open);
            writer.abort(open);
            writer.recoverAndAbort(writer.beginTransaction(2));
        }

        assertThat(allFiles()).isEmpty();
    }

    @Test
    void abortLingeringDeletesInProgressFilesOfOwnedFormerSubtasksOnly() throws Exception {
        // A previous attempt at parallelism 4 left an in-progress file per subtask, and subtask 1 a committed file.
        for (int subtask = 0; subtask < 4; subtask++) {
            TransactionalWriter<Event, FileTransaction> old = writer(subtask, 4, "old");
            FileTransaction preCommitted = writeAndPreCommit(old, 8, events(subtask, subtask + 1));
            if (subtask == 1) {
                old.commit(preCommitted);
            }
            old.write(old.beginTransaction(9), events(10, 11).get(0));
        }
        Files.writeString(dir.resolve(".other-0-9-old.inprogress"), "another sink's file\n");
        Files.writeString(dir.resolve("notes.txt"), "not ours\n");

        // Rescaled to parallelism 2: subtask 0 owns former subtasks 0 and 2.
        try (TransactionalWriter<Event, FileTransaction> writer = writer(restoredContext(0, 2, 4, 7, "new"))) {
            writer.abortLingering();
        }

        assertThat(allFiles()).containsExactlyInAnyOrder(
                ".other-0-9-old.inprogress", "notes.txt", "part-1-8-0-old",
                ".part-1-9-0-old.inprogress", ".part-3-8-0-old.inprogress", ".part-3-9-0-old.inprogress");
    }

    @Test
    void attemptsNeverWriteOverEachOthersFiles() throws Exception {
        for (String attempt : List.of("a1", "a2")) {
            try (TransactionalWriter<Event, FileTransaction> writer = writer(0, 1, attempt)) {
                writer.commit(writeAndPreCommit(writer, 4, events(0, 2)));
            }
        }

        assertThat(allFiles()).containsExactlyInAnyOrder("part-0-4-0-a1", "part-0-4-0-a2");
    }

    @Test
    void outputDirectoryIsCreatedWhenMissing() throws Exception {
        Path nested = dir.resolve("out/nested");
        FileSystemSink sink = FileSystemSink.builder(nested.toString()).partPrefix("events").build();

        try (TransactionalWriter<Event, FileTransaction> writer = sink.createWriter(context(2, 3, "x"))) {
            writer.abortLingering();
            writer.commit(writeAndPreCommit(writer, 1, events(0, 1)));
        }

        assertThat(Files.readString(nested.resolve("events-2-1-0-x"))).isEqualTo(lines(events(0, 1)));
    }

    @Test
    void attemptIdThatCannotBeAFileNameIsRefused() {
        FileSystemSink sink = FileSystemSink.builder(dir.toString()).build();

        assertThatThrownBy(() -> sink.createWriter(context(0, 1, "a/b")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("attempt id 'a/b'");
    }

    @Test
    void sizeRollingSplitsACheckpointIntoPartFilesCommittedTogether() throws Exception {
        List<Event> events = events(0, 5000);
        FileSystemSink sink = FileSystemSink.builder(dir.toString()).maxPartBytes(100_000).build();
        FileTransaction preCommitted;
        try (TransactionalWriter<Event, FileTransaction> writer = sink.createWriter(context(0, 1, "a1"))) {
            preCommitted = writeAndPreCommit(writer, 4, events);
            assertThat(visibleFiles()).as("2PC-1: rolled files are not visible before commit").isEmpty();

            writer.commit(preCommitted);
        }

        assertThat(preCommitted.parts()).hasSize(2);
        assertThat(preCommitted.length()).isEqualTo(bytes(events));
        assertThat(allFiles()).containsExactly("part-0-4-0-a1", "part-0-4-1-a1");
        assertThat(Files.readString(dir.resolve("part-0-4-0-a1")) + Files.readString(dir.resolve("part-0-4-1-a1")))
                .isEqualTo(lines(events));
        // The first file ends with the first line that brings it to 100,000 bytes or more.
        long firstPart = 0;
        for (int i = 0; firstPart < 100_000; i++) {
            firstPart += bytes(events.subList(i, i + 1));
        }
        assertThat(Files.size(dir.resolve("part-0-4-0-a1"))).isEqualTo(firstPart);
    }

    @Test
    void ageRollingStartsANewPartFileOnceTheOpenOneIsOldEnough() throws Exception {
        FileSystemSink sink = FileSystemSink.builder(dir.toString()).maxPartAge(Duration.ofMillis(1)).build();
        try (TransactionalWriter<Event, FileTransaction> writer = sink.createWriter(context(0, 1, "a1"))) {
            FileTransaction open = writer.beginTransaction(2);
            writer.write(open, events(0, 1).get(0));
            long opened = System.nanoTime();
            await().until(() -> System.nanoTime() - opened > Duration.ofMillis(2).toNanos());
            writer.write(open, events(1, 2).get(0));
            writer.commit(writer.preCommit(open));
        }

        assertThat(allFiles()).containsExactly("part-0-2-0-a1", "part-0-2-1-a1");
        assertThat(Files.readString(dir.resolve("part-0-2-1-a1"))).isEqualTo(lines(events(1, 2)));
    }

    @Test
    void recoveryCommitsEveryPartFileAndAbortLingeringDeletesThoseOfTheOpenTransaction() throws Exception {
        FileSystemSink sink = FileSystemSink.builder(dir.toString()).maxPartBytes(1).build();
        TransactionalWriter<Event, FileTransaction> crashed = sink.createWriter(context(0, 1, "a1"));
        byte[] handle = FileTransactionSerializer.INSTANCE.serialize(writeAndPreCommit(crashed, 3, events(0, 3)));
        // The next transaction rolled twice before the crash: none of its files may survive.
        FileTransaction next = crashed.beginTransaction(4);
        for (Event event : events(3, 6)) {
            crashed.write(next, event);
        }

        try (TransactionalWriter<Event, FileTransaction> recovered = sink.createWriter(restoredContext(0, 1, 1, 3, "a2"))) {
            recovered.recoverAndCommit(FileTransactionSerializer.INSTANCE.deserialize(FileTransactionSerializer.INSTANCE.version(), handle));
            recovered.recoverAndAbort(next);
            recovered.abortLingering();
        }

        assertThat(allFiles()).containsExactly("part-0-3-0-a1", "part-0-3-1-a1", "part-0-3-2-a1");
        assertThat(committedText()).isEqualTo(lines(events(0, 3)));
    }

    @Test
    void gzipPartFilesHoldTheLinesAndTheirPreCommittedLengthIsTheCompressedSize() throws Exception {
        List<Event> events = events(0, 1000);
        FileSystemSink sink = FileSystemSink.builder(dir.toString()).compression(Compression.GZIP).build();
        FileTransaction preCommitted;
        try (TransactionalWriter<Event, FileTransaction> writer = sink.createWriter(context(0, 1, "a1"))) {
            preCommitted = writeAndPreCommit(writer, 1, events);
            writer.commit(preCommitted);
        }

        Path file = dir.resolve("part-0-1-0-a1.gz");
        assertThat(allFiles()).containsExactly("part-0-1-0-a1.gz");
        assertThat(preCommitted.length()).isEqualTo(Files.size(file)).isLessThan(bytes(events));
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(lines(events));
        }
    }

    @Test
    void linesAroundAndBeyondTheWriteBufferAreWrittenWholeAndInOrder() throws Exception {
        int buffer = PartFileStream.BUFFER_BYTES;
        // Small lines, then lines that end one byte short of, exactly at, and one byte past a full
        // buffer, then lines longer than the buffer (written past it), with small lines between.
        List<Event> events = new java.util.ArrayList<>(events(0, 10));
        int lineOverhead = lines(List.of(new Event("10", "k", "", 0))).length();
        for (int payload : new int[] {buffer - lineOverhead - 1, buffer - lineOverhead, buffer - lineOverhead + 1,
                3 * buffer, 17, buffer + 5}) {
            events.add(new Event(Integer.toString(10 + events.size()), "k", "x".repeat(payload), 0));
            events.addAll(events(100 + events.size(), 103 + events.size()));
        }
        for (Compression compression : Compression.values()) {
            Path out = dir.resolve(compression.name());
            FileSystemSink sink = FileSystemSink.builder(out.toString()).compression(compression).build();
            FileTransaction preCommitted;
            try (TransactionalWriter<Event, FileTransaction> writer = sink.createWriter(context(0, 1, "a1"))) {
                preCommitted = writeAndPreCommit(writer, 1, events);
                writer.commit(preCommitted);
            }

            Path file = out.resolve("part-0-1-0-a1" + (compression == Compression.GZIP ? ".gz" : ""));
            assertThat(preCommitted.length()).as(compression.name()).isEqualTo(Files.size(file));
            try (InputStream in = compression == Compression.GZIP ? new GZIPInputStream(Files.newInputStream(file))
                    : Files.newInputStream(file)) {
                assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).as(compression.name())
                        .isEqualTo(lines(events));
            }
        }
    }

    private TransactionalWriter<Event, FileTransaction> writer(int subtask, int parallelism, String attempt)
            throws Exception {
        return writer(context(subtask, parallelism, attempt));
    }

    private TransactionalWriter<Event, FileTransaction> writer(SinkContext context) throws Exception {
        return FileSystemSink.builder(dir.toString()).build().createWriter(context);
    }

    private static SinkContext context(int subtask, int parallelism, String attempt) {
        return new SinkContext("job", "sink", subtask, parallelism, parallelism, OptionalLong.empty(), attempt);
    }

    private static SinkContext restoredContext(int subtask, int parallelism, int restoredParallelism,
            long restoredCheckpointId, String attempt) {
        return new SinkContext("job", "sink", subtask, parallelism, restoredParallelism,
                OptionalLong.of(restoredCheckpointId), attempt);
    }

    private static List<Event> events(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> new Event(Integer.toString(i), "key-" + i % 3,
                i % 2 == 0 ? "plain " + i : "needs, \"quoting\"\n" + i, 0)).toList();
    }

    private static long bytes(List<Event> events) {
        return lines(events).getBytes(StandardCharsets.UTF_8).length;
    }

    private List<String> allFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** The visible files' contents in name order, which is part order within a checkpoint. */
    private String committedText() throws IOException {
        StringBuilder text = new StringBuilder();
        for (String name : visibleFiles()) {
            text.append(Files.readString(dir.resolve(name)));
        }
        return text.toString();
    }

    private List<String> visibleFiles() throws IOException {
        return allFiles().stream().filter(name -> !name.startsWith(".")).toList();
    }
}
