package dev.onceflow.runtime.checkpoint;

import static dev.onceflow.runtime.checkpoint.CheckpointFixtures.flipByte;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A checkpoint file is input: any damage is detected and reported, never returned as state. */
class ChecksummedFilesTest {

    private static final CheckpointFileSystem LOCAL = LocalCheckpointFileSystem.INSTANCE;

    /** magic (4) + version (4) + length (8). */
    private static final int HEADER = 16;
    private static final byte[] PAYLOAD = "the state of a task at checkpoint 7".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private Path written() throws Exception {
        Path file = dir.resolve("task-0.state");
        ChecksummedFiles.writeAtomically(LOCAL, CheckpointLocation.of(file), PAYLOAD);
        return file;
    }

    @Test
    void anIntactFileReadsBackItsPayload() throws Exception {
        Path file = written();

        assertThat(ChecksummedFiles.read(LOCAL, CheckpointLocation.of(file))).isEqualTo(PAYLOAD);
        assertThat(Files.size(file)).isEqualTo(HEADER + PAYLOAD.length + 4);
        try (var files = Files.list(dir)) {
            assertThat(files).as("no temporary file is left behind").containsExactly(file);
        }
    }

    @Test
    void rewritingReplacesTheWholeFile() throws Exception {
        Path file = written();
        byte[] shorter = "v2".getBytes(StandardCharsets.UTF_8);

        ChecksummedFiles.writeAtomically(LOCAL, CheckpointLocation.of(file), shorter);

        assertThat(ChecksummedFiles.read(LOCAL, CheckpointLocation.of(file))).isEqualTo(shorter);
    }

    @Test
    void aStreamingParserSeesThePayloadAndADamagedFileIsReportedByItsChecksum() throws Exception {
        Path file = written();
        ChecksummedFiles.PayloadParser<String> firstWordThenSkip = payload -> {
            byte[] first = payload.in().readNBytes(3);
            assertThat(payload.position()).isEqualTo(3);
            payload.in().skipNBytes(payload.remaining());
            return new String(first, StandardCharsets.UTF_8);
        };

        ChecksummedFiles.Parsed<String> parsed = ChecksummedFiles.readStreaming(LOCAL, CheckpointLocation.of(file),
                firstWordThenSkip);

        assertThat(parsed.value()).isEqualTo("the");
        assertThat(parsed.length()).isEqualTo(PAYLOAD.length);
        assertThat(parsed.checksum()).isEqualTo(ChecksummedFiles.checksum(PAYLOAD));
        // A parser that fails on damaged content: the damage is what is reported.
        flipByte(file);
        assertThatThrownBy(() -> ChecksummedFiles.readStreaming(LOCAL, CheckpointLocation.of(file), payload -> {
            throw new java.io.IOException("corrupt length");
        })).isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("fails its checksum")
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
    }

    @Test
    void aFlippedPayloadByteFailsTheChecksum() throws Exception {
        Path file = written();
        byte[] bytes = Files.readAllBytes(file);
        bytes[HEADER + 5] ^= 0x01;
        Files.write(file, bytes);

        assertThatThrownBy(() -> ChecksummedFiles.read(LOCAL, CheckpointLocation.of(file))).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("fails its checksum");
    }

    @Test
    void aFlippedChecksumByteFailsTheChecksum() throws Exception {
        Path file = written();
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length - 1] ^= (byte) 0x80;
        Files.write(file, bytes);

        assertThatThrownBy(() -> ChecksummedFiles.read(LOCAL, CheckpointLocation.of(file))).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("fails its checksum");
    }

    @Test
    void aTruncatedFileIsRejected() throws Exception {
        Path file = written();
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length - 3));

        assertThatThrownBy(() -> ChecksummedFiles.read(LOCAL, CheckpointLocation.of(file))).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("is truncated or padded")
                .hasMessageContaining("header says " + PAYLOAD.length + " payload bytes");
    }

    @Test
    void aFileCutInsideItsHeaderIsRejected() throws Exception {
        Path file = written();
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, 10));

        assertThatThrownBy(() -> ChecksummedFiles.read(LOCAL, CheckpointLocation.of(file))).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("is truncated (10 bytes)");
    }

    @Test
    void anEmptyFileIsRejected() throws Exception {
        Path file = dir.resolve("empty.state");
        Files.write(file, new byte[0]);

        assertThatThrownBy(() -> ChecksummedFiles.read(LOCAL, CheckpointLocation.of(file))).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("is truncated (0 bytes)");
    }

    @Test
    void trailingBytesAreRejected() throws Exception {
        Path file = written();
        byte[] bytes = Files.readAllBytes(file);
        byte[] padded = Arrays.copyOf(bytes, bytes.length + 2);
        Files.write(file, padded);

        assertThatThrownBy(() -> ChecksummedFiles.read(LOCAL, CheckpointLocation.of(file))).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("is truncated or padded")
                .hasMessageContaining("file holds " + (PAYLOAD.length + 2));
    }

    @Test
    void aWrongMagicNumberIsRejected() throws Exception {
        Path file = written();
        byte[] bytes = Files.readAllBytes(file);
        bytes[0] = 'X';
        Files.write(file, bytes);

        assertThatThrownBy(() -> ChecksummedFiles.read(LOCAL, CheckpointLocation.of(file))).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("bad magic number");
    }

    @Test
    void anUnknownFormatVersionIsRejected() throws Exception {
        Path file = written();
        byte[] bytes = Files.readAllBytes(file);
        bytes[7] = 9;
        Files.write(file, bytes);

        assertThatThrownBy(() -> ChecksummedFiles.read(LOCAL, CheckpointLocation.of(file))).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("unknown format version 9");
    }

    @Test
    void aFileThatIsNotACheckpointFileIsRejected() throws Exception {
        Path file = dir.resolve("notes.txt");
        Files.writeString(file, "just some text that is long enough to have a header");

        assertThatThrownBy(() -> ChecksummedFiles.read(LOCAL, CheckpointLocation.of(file))).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("not a checkpoint file");
    }

    @Test
    void aStreamedPayloadLargerThanTheBuffersReadsBackWithTheChecksumOfItsBytes() throws Exception {
        byte[] large = new byte[3 * 65536 + 17];
        new java.util.Random(7).nextBytes(large);
        Path file = dir.resolve("large.state");

        int checksum = ChecksummedFiles.writeAtomically(LOCAL, CheckpointLocation.of(file), large.length, out -> {
            out.writeByte(large[0]);
            out.write(large, 1, 100);
            out.write(large, 101, large.length - 101);
        });

        assertThat(ChecksummedFiles.read(LOCAL, CheckpointLocation.of(file))).isEqualTo(large);
        assertThat(checksum).isEqualTo(ChecksummedFiles.checksum(large));
    }

    @Test
    void aPayloadShorterThanAnnouncedIsNeverRenamedIntoPlace() throws Exception {
        Path file = written();

        assertThatThrownBy(() -> ChecksummedFiles.writeAtomically(LOCAL, CheckpointLocation.of(file), 100,
                out -> out.write(new byte[99])))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageEndingWith("the payload is 99 bytes, not the 100 announced");

        assertThat(ChecksummedFiles.read(LOCAL, CheckpointLocation.of(file))).as("the previous file is intact")
                .isEqualTo(PAYLOAD);
        try (var files = Files.list(dir)) {
            assertThat(files).as("no temporary file is left behind").containsExactly(file);
        }
    }

    @Test
    void aWriterThatFailsLeavesNoFile() throws Exception {
        Path file = dir.resolve("failed.state");

        assertThatThrownBy(() -> ChecksummedFiles.writeAtomically(LOCAL, CheckpointLocation.of(file), 10, out -> {
            out.write(new byte[5]);
            throw new java.io.IOException("disk full");
        })).hasMessage("disk full");

        try (var files = Files.list(dir)) {
            assertThat(files).as("neither the file nor its temporary file").isEmpty();
        }
    }
}
