package dev.onceflow.connector.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Rules SER-1 to SER-3 for the file split and enumerator state serializers. */
class FileSerializersTest {

    @Test
    void splitRoundTrips() throws Exception {
        FileSplit split = new FileSplit("hdfs://nn:8020/in/dätä-1.txt", 123_456_789_012L);

        assertThat(FileSplitSerializer.INSTANCE.deserialize(1, FileSplitSerializer.INSTANCE.serialize(split)))
                .isEqualTo(split);
    }

    @Test
    void enumeratorStateRoundTrips() throws Exception {
        FileEnumeratorState state = new FileEnumeratorState(
                List.of(new FileSplit("file:/in/b", 0), new FileSplit("file:/in/a", 0)),
                Set.of("file:/in/a", "file:/in/b", "file:/in/c"));
        FileEnumeratorStateSerializer serializer = FileEnumeratorStateSerializer.INSTANCE;

        FileEnumeratorState copy = serializer.deserialize(1, serializer.serialize(state));

        assertThat(copy).isEqualTo(state);
        assertThat(copy.unassigned()).as("assignment order is kept").containsExactlyElementsOf(state.unassigned());
    }

    @Test
    void unknownVersionAndCorruptBytesAreRefused() throws Exception {
        byte[] bytes = FileSplitSerializer.INSTANCE.serialize(new FileSplit("file:/a", 7));
        byte[] hugeLength = bytes.clone();
        hugeLength[0] = 0x7f;

        assertThatThrownBy(() -> FileSplitSerializer.INSTANCE.deserialize(9, bytes))
                .isInstanceOf(IOException.class).hasMessageContaining("file split").hasMessageContaining("version 9");
        assertThatThrownBy(() -> FileSplitSerializer.INSTANCE.deserialize(1, hugeLength))
                .isInstanceOf(IOException.class).hasMessageContaining("corrupt file path");
    }
}
