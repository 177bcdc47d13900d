package dev.onceflow.spi.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class EventSerializerTest {

    private final EventSerializer serializer = EventSerializer.INSTANCE;

    @Test
    void roundTripsEveryFieldIncludingNonAsciiAndEmptyText() throws IOException {
        Event event = new Event("id-ü-1", "", "päyload, with \"quotes\"\nand a newline", 42);

        assertThat(serializer.deserialize(serializer.version(), serializer.serialize(event))).isEqualTo(event);
    }

    @Test
    void truncatedBytesFailWithAnIOExceptionInsteadOfAllocatingOrReturningGarbage() throws IOException {
        byte[] bytes = serializer.serialize(new Event("7", "key-0", "payload", 3));

        assertThatThrownBy(() -> serializer.deserialize(1, Arrays.copyOf(bytes, bytes.length - 3)))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> serializer.deserialize(1, new byte[] {0x7f, 0, 0, 0}))
                .isInstanceOf(IOException.class).hasMessageContaining("corrupt event id");
    }

    @Test
    void anUnknownVersionIsRefusedByName() throws IOException {
        byte[] bytes = serializer.serialize(new Event("7", "key-0", "payload", 3));

        assertThatThrownBy(() -> serializer.deserialize(2, bytes)).isInstanceOf(IOException.class)
                .hasMessageContaining("serializer version 2");
    }
}
