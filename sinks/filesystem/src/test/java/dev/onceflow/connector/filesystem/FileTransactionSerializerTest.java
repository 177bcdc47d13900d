package dev.onceflow.connector.filesystem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Rules SER-1 to SER-3 for the transaction handle serializer. */
class FileTransactionSerializerTest {

    private final FileTransactionSerializer serializer = FileTransactionSerializer.INSTANCE;

    @Test
    void handleRoundTrips() throws Exception {
        FileTransaction handle = new FileTransaction("hdfs://nn:8020/out/.part-3-17-ä1.inprogress",
                "hdfs://nn:8020/out/part-3-17-ä1", 5_000_000_000L);

        assertThat(serializer.deserialize(serializer.version(), serializer.serialize(handle))).isEqualTo(handle);
    }

    @Test
    void unknownVersionAndCorruptBytesAreRefused() throws Exception {
        byte[] bytes = serializer.serialize(new FileTransaction("file:/o/.p.inprogress", "file:/o/p", 10));

        assertThatThrownBy(() -> serializer.deserialize(2, bytes))
                .isInstanceOf(IOException.class).hasMessageContaining("file transaction").hasMessageContaining("version 2");
        assertThatThrownBy(() -> serializer.deserialize(1, Arrays.copyOf(bytes, bytes.length - 3)))
                .isInstanceOf(IOException.class);
        byte[] negative = bytes.clone();
        negative[negative.length - 8] = (byte) 0x80;
        assertThatThrownBy(() -> serializer.deserialize(1, negative))
                .isInstanceOf(IOException.class).hasMessageContaining("negative length");
    }
}
