package dev.onceflow.connector.filesystem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rules SER-1 to SER-3 for the transaction handle serializer. */
class FileTransactionSerializerTest {

    private final FileTransactionSerializer serializer = FileTransactionSerializer.INSTANCE;

    @Test
    void handleRoundTrips() throws Exception {
        FileTransaction handle = new FileTransaction(List.of(
                new PartFile(".part-3-17-0-ä1.inprogress", "part-3-17-0-ä1", 5_000_000_000L),
                new PartFile(".part-3-17-1-ä1.inprogress", "part-3-17-1-ä1", 7)));

        assertThat(serializer.deserialize(serializer.version(), serializer.serialize(handle))).isEqualTo(handle);
    }

    @Test
    void handlesOfVersionTwoStillRestoreWithTheirAbsolutePaths() throws Exception {
        // Where they may be committed is the writer's decision (2PC-9), which knows its output directory.
        List<PartFile> parts = List.of(
                new PartFile("hdfs://nn:8020/out/.part-3-17-0-a1.inprogress", "hdfs://nn:8020/out/part-3-17-0-a1", 9),
                new PartFile("hdfs://nn:8020/out/.part-3-17-1-a1.inprogress", "hdfs://nn:8020/out/part-3-17-1-a1", 7));

        assertThat(serializer.deserialize(2, EarlierBuildHandles.versionTwo(parts))).isEqualTo(new FileTransaction(parts));
    }

    @Test
    void handlesOfVersionOneStillRestore() throws Exception {
        PartFile part = new PartFile("file:/o/.p-0-3-a1.inprogress", "file:/o/p-0-3-a1", 42);

        assertThat(serializer.deserialize(1, EarlierBuildHandles.versionOne(part)))
                .isEqualTo(FileTransaction.of("file:/o/.p-0-3-a1.inprogress", "file:/o/p-0-3-a1", 42));
    }

    @Test
    void unknownVersionAndCorruptBytesAreRefused() throws Exception {
        byte[] bytes = serializer.serialize(FileTransaction.of(".p.inprogress", "p", 10));

        assertThatThrownBy(() -> serializer.deserialize(4, bytes))
                .isInstanceOf(IOException.class).hasMessageContaining("file transaction").hasMessageContaining("version 4");
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
