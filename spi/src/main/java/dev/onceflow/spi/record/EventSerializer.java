package dev.onceflow.spi.record;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes {@link Event}s into checkpoints (write-ahead segments, buffered records). Version 1:
 * id, key and payload as an int byte length followed by UTF-8 bytes, then the count as a long.
 * Stateless; use {@link #INSTANCE}.
 */
public final class EventSerializer implements SimpleVersionedSerializer<Event> {

    /** The only instance. */
    public static final EventSerializer INSTANCE = new EventSerializer();

    private static final int VERSION = 1;

    private EventSerializer() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public byte[] serialize(Event event) throws IOException {
        return Serializers.write(out -> {
            writeText(out, event.id());
            writeText(out, event.key());
            writeText(out, event.payload());
            out.writeLong(event.count());
        });
    }

    @Override
    public Event deserialize(int version, byte[] serialized) throws IOException {
        Serializers.checkVersion(VERSION, version, "event");
        return Serializers.read(serialized, in -> new Event(readText(in, "event id"), readText(in, "event key"),
                readText(in, "event payload"), in.readLong()));
    }

    private static void writeText(DataOutputStream out, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static String readText(DataInputStream in, String what) throws IOException {
        byte[] bytes = new byte[Serializers.readLength(in, what)];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
