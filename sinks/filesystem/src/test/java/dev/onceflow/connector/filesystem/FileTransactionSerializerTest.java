package dev.onceflow.connector.filesystem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rules SER-1 to SER-3 for the transaction handle serializer, and the directory handles record (2PC-11). */
class FileTransactionSerializerTest {

    private final FileTransactionSerializer serializer = FileTransactionSerializer.INSTANCE;

    @Test
    void handleRoundTrips() throws Exception {
        FileTransaction handle = new FileTransaction(List.of(
                new PartFile("hdfs://nn:8020/out/.part-3-17-0-ä1.inprogress", "hdfs://nn:8020/out/part-3-17-0-ä1",
                        5_000_000_000L),
                new PartFile("hdfs://nn:8020/out/.part-3-17-1-ä1.inprogress", "hdfs://nn:8020/out/part-3-17-1-ä1", 7)));

        assertThat(serializer.deserialize(serializer.version(), serializer.serialize(handle))).isEqualTo(handle);
        assertThat(handle.directory()).isEqualTo("hdfs://nn:8020/out");
    }

    @Test
    void theOutputDirectoryRoundTripsEvenWhereItIsNotThePartFilesParent() throws Exception {
        FileTransaction handle = new FileTransaction("file:/jobs/a/out", List.of(
                new PartFile("file:/jobs/a/out/day=1/.part-0-4-0-b2.inprogress", "file:/jobs/a/out/day=1/part-0-4-0-b2",
                        9)));

        FileTransaction read = serializer.deserialize(serializer.version(), serializer.serialize(handle));

        assertThat(read).isEqualTo(handle);
        assertThat(read.in("file:/jobs/b/out").parts()).containsExactly(new PartFile(
                "file:/jobs/b/out/day=1/.part-0-4-0-b2.inprogress", "file:/jobs/b/out/day=1/part-0-4-0-b2", 9));
    }

    @Test
    void aVersionTwoHandleWrittenByTheBuildBeforeDirectoriesStillRestores() throws Exception {
        // Written by FileTransactionSerializer version 2, the build before handles recorded their directory.
        byte[] golden;
        try (InputStream in = getClass().getResourceAsStream("/handles/file-transaction-v2.bin")) {
            golden = in.readAllBytes();
        }

        FileTransaction read = serializer.deserialize(2, golden);

        assertThat(read.parts()).containsExactly(
                new PartFile("file:/jobs/a/out/.part-1-7-0-5f3c9a01.inprogress", "file:/jobs/a/out/part-1-7-0-5f3c9a01",
                        1234),
                new PartFile("file:/jobs/a/out/.part-1-7-1-5f3c9a01.inprogress", "file:/jobs/a/out/part-1-7-1-5f3c9a01",
                        56));
        assertThat(read.directory()).as("every earlier build wrote part files directly in the output directory")
                .isEqualTo("file:/jobs/a/out");
        assertThat(serializer.deserialize(serializer.version(), serializer.serialize(read))).isEqualTo(read);
    }

    @Test
    void handlesOfVersionOneStillRestore() throws Exception {
        // Version 1 as the previous build wrote it: in-progress path, final path, length; no count.
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            for (String path : List.of("file:/o/.p-0-3-a1.inprogress", "file:/o/p-0-3-a1")) {
                out.writeInt(path.length());
                out.write(path.getBytes(StandardCharsets.UTF_8));
            }
            out.writeLong(42);
        }

        FileTransaction read = serializer.deserialize(1, bytes.toByteArray());

        assertThat(read).isEqualTo(FileTransaction.of("file:/o/.p-0-3-a1.inprogress", "file:/o/p-0-3-a1", 42));
        assertThat(read.directory()).isEqualTo("file:/o");
    }

    @Test
    void unknownVersionAndCorruptBytesAreRefused() throws Exception {
        byte[] bytes = serializer.serialize(FileTransaction.of("file:/o/.p.inprogress", "file:/o/p", 10));

        assertThatThrownBy(() -> serializer.deserialize(4, bytes))
                .isInstanceOf(IOException.class).hasMessageContaining("file transaction").hasMessageContaining("version 4");
        assertThatThrownBy(() -> serializer.deserialize(3, Arrays.copyOf(bytes, bytes.length - 3)))
                .isInstanceOf(IOException.class);
        byte[] negative = bytes.clone();
        negative[negative.length - 8] = (byte) 0x80;
        assertThatThrownBy(() -> serializer.deserialize(3, negative))
                .isInstanceOf(IOException.class).hasMessageContaining("negative length");
        byte[] manyParts = bytes.clone();
        int count = Integer.BYTES + "file:/o".length();
        manyParts[count] = 0x7f;
        assertThatThrownBy(() -> serializer.deserialize(3, manyParts))
                .isInstanceOf(IOException.class).hasMessageContaining("part files");
    }

    @Test
    void aPartFileOutsideTheRecordedDirectoryIsRefusedAsCorrupt() throws Exception {
        // Same length as "file:/o", so only the directory differs: the part files do not lie under it.
        byte[] bytes = serializer.serialize(FileTransaction.of("file:/o/.p.inprogress", "file:/o/p", 10));
        byte[] elsewhere = bytes.clone();
        elsewhere[Integer.BYTES + "file:/".length()] = 'x';

        assertThatThrownBy(() -> serializer.deserialize(3, elsewhere)).isInstanceOf(IOException.class)
                .hasMessage("corrupt file transaction: part file file:/o/.p.inprogress does not lie under the "
                        + "transaction's directory file:/x");
        assertThatThrownBy(() -> serializer.deserialize(2, versionTwo("file:/o/.p-0-1-0-a.inprogress",
                "file:/other/p-0-1-0-a"))).isInstanceOf(IOException.class)
                .hasMessage("corrupt file transaction: part file file:/other/p-0-1-0-a does not lie under the "
                        + "transaction's directory file:/o");
    }

    /** A version 2 handle of one part file of 1 byte, written byte by byte as that build did. */
    private static byte[] versionTwo(String inProgressPath, String finalPath) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(1);
            for (String path : List.of(inProgressPath, finalPath)) {
                out.writeInt(path.length());
                out.write(path.getBytes(StandardCharsets.UTF_8));
            }
            out.writeLong(1);
        }
        return bytes.toByteArray();
    }
}
