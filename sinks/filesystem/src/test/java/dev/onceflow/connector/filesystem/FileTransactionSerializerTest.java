package dev.onceflow.connector.filesystem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rules SER-1 to SER-3 for the transaction handle serializer. */
class FileTransactionSerializerTest {

    private final FileTransactionSerializer serializer = FileTransactionSerializer.INSTANCE;

    @Test
    void handleRoundTrips() throws Exception {
        FileTransaction handle = new FileTransaction(List.of(
                new PartFile("hdfs://nn:8020/out/.part-3-17-0-ä1.inprogress", "hdfs://nn:8020/out/part-3-17-0-ä1",
                        5_000_000_000L),
                new PartFile("hdfs://nn:8020/out/.part-3-17-1-ä1.inprogress", "hdfs://nn:8020/out/part-3-17-1-ä1", 7)));

        assertThat(serializer.deserialize(serializer.version(), serializer.serialize(handle))).isEqualTo(handle);
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

        assertThat(serializer.deserialize(1, bytes.toByteArray()))
                .isEqualTo(FileTransaction.of("file:/o/.p-0-3-a1.inprogress", "file:/o/p-0-3-a1", 42));
    }

    @Test
    void unknownVersionAndCorruptBytesAreRefused() throws Exception {
        byte[] bytes = serializer.serialize(FileTransaction.of("file:/o/.p.inprogress", "file:/o/p", 10));

        assertThatThrownBy(() -> serializer.deserialize(3, bytes))
                .isInstanceOf(IOException.class).hasMessageContaining("file transaction").hasMessageContaining("version 3");
        assertThatThrownBy(() -> serializer.deserialize(2, Arrays.copyOf(bytes, bytes.length - 3)))
                .isInstanceOf(IOException.class);
        byte[] negative = bytes.clone();
        negative[negative.length - 8] = (byte) 0x80;
        assertThatThrownBy(() -> serializer.deserialize(2, negative))
                .isInstanceOf(IOException.class).hasMessageContaining("negative length");
        byte[] manyParts = bytes.clone();
        manyParts[0] = 0x7f;
        assertThatThrownBy(() -> serializer.deserialize(2, manyParts))
                .isInstanceOf(IOException.class).hasMessageContaining("part files");
    }
}
