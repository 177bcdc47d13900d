package dev.onceflow.connector.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class JdbcTransactionSerializerTest {

    private final JdbcTransactionSerializer serializer = JdbcTransactionSerializer.INSTANCE;

    @Test
    void roundTripsHandles() throws IOException {
        for (JdbcTransaction handle : new JdbcTransaction[] {
                new JdbcTransaction("job-sink-0-1", 0), new JdbcTransaction("jöb 'x'-sink-12-345", Long.MAX_VALUE)}) {
            assertThat(serializer.deserialize(serializer.version(), serializer.serialize(handle))).isEqualTo(handle);
        }
    }

    @Test
    void rejectsOtherVersionsAndCorruptBytes() throws IOException {
        byte[] bytes = serializer.serialize(new JdbcTransaction("job-sink-0-1", 3));

        assertThatThrownBy(() -> serializer.deserialize(2, bytes)).isInstanceOf(IOException.class)
                .hasMessageContaining("version 2");
        assertThatThrownBy(() -> serializer.deserialize(1, Arrays.copyOf(bytes, bytes.length + 1)))
                .isInstanceOf(IOException.class).hasMessageContaining("trailing");
        assertThatThrownBy(() -> serializer.deserialize(1, Arrays.copyOf(bytes, 6))).isInstanceOf(IOException.class);
    }

    @Test
    void handlesAreValidated() {
        assertThatThrownBy(() -> new JdbcTransaction("gid", -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new JdbcTransaction(null, 0)).isInstanceOf(NullPointerException.class);
    }
}
