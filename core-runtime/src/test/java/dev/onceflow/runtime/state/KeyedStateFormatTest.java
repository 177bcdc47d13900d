package dev.onceflow.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.spi.serialization.Serializers;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class KeyedStateFormatTest {

    /** Snapshots write values directly; the bytes must be those of the encoding restore reads. */
    @Test
    void aValueWrittenDirectlyIsTheLengthPrefixedEncoding() throws IOException {
        String value = "payload-" + "x".repeat(300);

        ByteArrayOutputStream direct = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(direct)) {
            KeyedStateFormat.writeEncodedValue(out, Serializers.STRING, value);
        }
        ByteArrayOutputStream viaArray = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(viaArray)) {
            KeyedStateFormat.writeBytes(out, KeyedStateFormat.encodeValue(Serializers.STRING, value));
        }

        assertThat(direct.toByteArray()).isEqualTo(viaArray.toByteArray());
        byte[] encoding = java.util.Arrays.copyOfRange(direct.toByteArray(), Integer.BYTES, direct.size());
        assertThat(KeyedStateFormat.decodeValue(Serializers.STRING, encoding)).isEqualTo(value);
    }
}
