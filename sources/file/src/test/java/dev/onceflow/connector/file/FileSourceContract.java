package dev.onceflow.connector.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.spi.source.Boundedness;
import dev.onceflow.spi.source.InputStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

/**
 * Drives the file source through the SPI on a real file system; one subclass per file system
 * (local disk, HDFS). Files are written through Hadoop's API, as the file system's own clients do.
 */
@SuppressWarnings("try") // SourceHarness.close() throws Exception, like the SPI it closes.
abstract class FileSourceContract {

    /** The file system under test. */
    protected FileSystem fs;
    /** A fresh, existing, fully qualified directory for the test. */
    protected Path dir;

    @Test
    void boundedSourceReadsEveryVisibleFileOnceAcrossTwoReaders() throws Exception {
        List<Event> a = writeEvents("a.txt", 0, 150);
        List<Event> b = writeEvents("b.txt", 150, 160);
        List<Event> c = writeEvents("c.txt", 160, 400);
        writeEvents(".part-0-1-x.inprogress", 1000, 1010);
        writeEvents("_SUCCESS", 2000, 2001);
        FileSource source = FileSource.builder(dir.toString()).build();

        try (SourceHarness harness = SourceHarness.start(source, 2)) {
            List<Event> output = harness.runToEnd();

            List<Event> expected = new ArrayList<>(a);
            expected.addAll(b);
            expected.addAll(c);
            assertThat(output).containsExactlyInAnyOrderElementsOf(expected);
            // Within a file, order is the file's order.
            assertThat(output.stream().filter(a::contains).toList()).isEqualTo(a);
            assertThat(harness.enumerator.snapshotState(1).unassigned()).isEmpty();
        }
        assertThat(source.boundedness()).isEqualTo(Boundedness.BOUNDED);
    }

    @Test
    void linesFormatIdentifiesEachLineByFileNameAndByteOffset() throws Exception {
        // "wörld" is 6 bytes in UTF-8; the last line has no terminator and a bounded source emits it.
        write("in.txt", "hello\nwörld\n\nlast");
        FileSource source = FileSource.builder(dir.toString()).format(FileFormat.LINES).build();

        try (SourceHarness harness = SourceHarness.start(source, 1)) {
            assertThat(harness.runToEnd()).containsExactly(
                    new Event("in.txt:0", "hello", "hello", 0),
                    new Event("in.txt:6", "wörld", "wörld", 0),
                    new Event("in.txt:13", "", "", 0),
                    new Event("in.txt:14", "last", "last", 0));
        }
    }

    @Test
    void eventsWhosePayloadHoldsLineBreaksAndQuotesRoundTrip() throws Exception {
        List<Event> events = List.of(
                new Event("1", "k", "two\nlines, \"quoted\"", 3),
                new Event("2", "k,\"odd\"", "", 0),
                new Event("3", "k", "say \"\"\n", 1));
        StringBuilder text = new StringBuilder();
        events.forEach(e -> text.append(EventFormat.toLine(e)).append('\n'));
        write("events", text.toString());

        try (SourceHarness harness = SourceHarness.start(FileSource.builder(dir.toString()).build(), 1)) {
            assertThat(harness.runToEnd()).containsExactlyElementsOf(events);
        }
    }

    @Test
    void restoreFromCheckpointContinuesExactlyAfterTheLastEmittedLine() throws Exception {
        List<Event> a = writeEvents("a.txt", 0, 250);
        List<Event> b = writeEvents("b.txt", 250, 300);
        FileSource source = FileSource.builder(dir.toString()).build();
        SourceHarness.Checkpoint checkpoint;
        List<Event> beforeCheckpoint;
        try (SourceHarness harness = SourceHarness.start(source, 1)) {
            assertThat(harness.pollOnce()).containsExactly(InputStatus.MORE_AVAILABLE);
            beforeCheckpoint = List.copyOf(harness.output);
            checkpoint = harness.checkpoint(5);
            // Emitted after the barrier and lost with the crash: must come again after the restore.
            harness.pollOnce();

            assertThat(harness.readers.get(0).snapshotState(5)).singleElement()
                    .extracting(FileSplit::offset).isEqualTo(bytesOfLines(a.subList(0, 200)));
        }
        // Files added after a bounded job started are not part of its input, even after a restore.
        writeEvents("c.txt", 300, 310);

        List<Event> afterRestore;
        try (SourceHarness restored = SourceHarness.restore(source, 1, checkpoint)) {
            afterRestore = restored.runToEnd();
        }

        assertThat(beforeCheckpoint).isEqualTo(a.subList(0, 100));
        List<Event> expectedAfter = new ArrayList<>(a.subList(100, 250));
        expectedAfter.addAll(b);
        assertThat(afterRestore).isEqualTo(expectedAfter);
    }

    @Test
    void restoredSplitPositionIsTheByteOffsetOfTheNextLine() throws Exception {
        List<Event> a = writeEvents("a.txt", 0, 10);
        long offsetOfLine4 = bytesOfLines(a.subList(0, 4));
        FileSource source = FileSource.builder(dir.toString()).build();
        SourceHarness.Checkpoint checkpoint = new SourceHarness.Checkpoint(
                source.enumeratorStateSerializer().serialize(new FileEnumeratorState(List.of(),
                        Set.of(fileUri("a.txt")))),
                List.of(source.splitSerializer().serialize(new FileSplit(fileUri("a.txt"), offsetOfLine4))));

        try (SourceHarness restored = SourceHarness.restore(source, 2, checkpoint)) {
            assertThat(restored.runToEnd()).isEqualTo(a.subList(4, 10));
        }
    }

    @Test
    void continuousSourceDiscoversFilesAddedLater() throws Exception {
        List<Event> a = writeEvents("a.txt", 0, 5);
        FileSource source = FileSource.builder(dir.toString()).discoveryInterval(Duration.ofMillis(1)).build();

        try (SourceHarness harness = SourceHarness.start(source, 2)) {
            assertThat(harness.runUntilIdle()).isEqualTo(a);
            List<Event> b = writeEvents("b.txt", 5, 8);
            writeEvents(".b2.inprogress", 100, 101);
            assertThat(harness.runUntilIdle()).as("nothing new before the next discovery").isEqualTo(a);

            harness.discover();

            List<Event> expected = new ArrayList<>(a);
            expected.addAll(b);
            assertThat(harness.runUntilIdle()).isEqualTo(expected);
            assertThat(harness.pollOnce()).doesNotContain(InputStatus.END_OF_INPUT);
        }
        assertThat(source.boundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
    }

    @Test
    void continuousSourceFollowsGrowthAndWaitsForAnUnterminatedLine() throws Exception {
        write("growing", "1,k,0,p\n2,k,0");
        FileSource source = FileSource.builder(dir.toString()).discoveryInterval(Duration.ofMillis(1)).build();

        try (SourceHarness harness = SourceHarness.start(source, 1)) {
            assertThat(harness.runUntilIdle()).extracting(Event::id).containsExactly("1");
            assertThat(harness.checkpoint(1).splits()).hasSize(1);
            assertThat(harness.readers.get(0).snapshotState(1)).containsExactly(new FileSplit(fileUri("growing"), 8));

            append("growing", ",payload\n3,k,0,p\n");
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                    .until(() -> harness.runUntilIdle().size() == 3);

            assertThat(harness.output).containsExactly(
                    new Event("1", "k", "p", 0), new Event("2", "k", "payload", 0), new Event("3", "k", "p", 0));
            assertThat(harness.readers.get(0).snapshotState(2))
                    .containsExactly(new FileSplit(fileUri("growing"), size("growing")));
        }
    }

    @Test
    void corruptEventsLineFailsNamingTheFileAndOffset() throws Exception {
        write("bad.txt", "1,k,0,p\nnot an event\n2,k,0,p\n");

        try (SourceHarness harness = SourceHarness.start(FileSource.builder(dir.toString()).build(), 1)) {
            assertThatThrownBy(harness::runToEnd)
                    .isInstanceOf(IOException.class)
                    .hasMessage("cannot read the record at byte offset 8 of file " + fileUri("bad.txt")
                            + " (format EVENTS): expected 4 fields id,key,count,payload but found 1 in line: not an event");
            assertThat(harness.output).extracting(Event::id).containsExactly("1");
        }
    }

    @Test
    void fileShorterThanItsCheckpointedPositionFailsInsteadOfSkipping() throws Exception {
        writeEvents("a.txt", 0, 2);
        FileSource source = FileSource.builder(dir.toString()).build();
        SourceHarness.Checkpoint checkpoint = new SourceHarness.Checkpoint(
                source.enumeratorStateSerializer().serialize(new FileEnumeratorState(List.of(), Set.of())),
                List.of(source.splitSerializer().serialize(new FileSplit(fileUri("a.txt"), 1_000))));

        try (SourceHarness restored = SourceHarness.restore(source, 1, checkpoint)) {
            assertThatThrownBy(restored::runToEnd).isInstanceOf(IOException.class)
                    .hasMessageContaining("file " + fileUri("a.txt") + " has " + size("a.txt")
                            + " bytes but was already read up to byte 1000");
        }
    }

    @Test
    void missingDirectoryFailsNamingIt() {
        FileSource source = FileSource.builder(fileUri("absent")).build();

        assertThatThrownBy(() -> SourceHarness.start(source, 1))
                .hasMessageContaining("cannot list the input directory " + fileUri("absent"));
    }

    private List<Event> writeEvents(String fileName, int from, int to) throws IOException {
        List<Event> events = IntStream.range(from, to)
                .mapToObj(i -> new Event(Integer.toString(i), "key-" + i % 3, "payload-" + i, i % 5)).toList();
        StringBuilder text = new StringBuilder();
        events.forEach(e -> text.append(EventFormat.toLine(e)).append('\n'));
        write(fileName, text.toString());
        return events;
    }

    private void write(String fileName, String text) throws IOException {
        try (FSDataOutputStream out = fs.create(new Path(dir, fileName), false)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    private void append(String fileName, String text) throws IOException {
        try (FSDataOutputStream out = fs.append(new Path(dir, fileName))) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    private long size(String fileName) throws IOException {
        return fs.getFileStatus(new Path(dir, fileName)).getLen();
    }

    private static long bytesOfLines(List<Event> events) {
        return events.stream().mapToLong(e -> EventFormat.toLine(e).getBytes(StandardCharsets.UTF_8).length + 1).sum();
    }

    private String fileUri(String fileName) {
        return new Path(dir, fileName).toString();
    }
}
