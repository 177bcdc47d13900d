package dev.onceflow.spi.serialization;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Serializers for the JDK types that connectors and jobs keep in checkpoints most often. */
public final class Serializers {

    private Serializers() {
    }

    /** UTF-8 strings. */
    public static final SimpleVersionedSerializer<String> STRING = new SimpleVersionedSerializer<>() {
        @Override
        public int version() {
            return 1;
        }

        @Override
        public byte[] serialize(String value) {
            return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String deserialize(int version, byte[] serialized) throws IOException {
            checkVersion(1, version, "string");
            return new String(serialized, StandardCharsets.UTF_8);
        }
    };

    /** 64-bit integers, big-endian. */
    public static final SimpleVersionedSerializer<Long> LONG = new SimpleVersionedSerializer<>() {
        @Override
        public int version() {
            return 1;
        }

        @Override
        public byte[] serialize(Long value) {
            return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
        }

        @Override
        public Long deserialize(int version, byte[] serialized) throws IOException {
            checkVersion(1, version, "long");
            checkLength(Long.BYTES, serialized, "long");
            return ByteBuffer.wrap(serialized).getLong();
        }
    };

    /** 32-bit integers, big-endian. */
    public static final SimpleVersionedSerializer<Integer> INTEGER = new SimpleVersionedSerializer<>() {
        @Override
        public int version() {
            return 1;
        }

        @Override
        public byte[] serialize(Integer value) {
            return ByteBuffer.allocate(Integer.BYTES).putInt(value).array();
        }

        @Override
        public Integer deserialize(int version, byte[] serialized) throws IOException {
            checkVersion(1, version, "integer");
            checkLength(Integer.BYTES, serialized, "integer");
            return ByteBuffer.wrap(serialized).getInt();
        }
    };

    /**
     * Helper for serializers that write with {@link DataOutputStream}: runs {@code body} and
     * returns the bytes it wrote.
     */
    public static byte[] write(DataWriter body) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            body.write(out);
        }
        return bytes.toByteArray();
    }

    /**
     * Helper for serializers that read with {@link DataInputStream}: runs {@code body} and fails
     * if it left bytes unread, which means the bytes were not written by the matching writer.
     */
    public static <T> T read(byte[] serialized, DataReader<T> body) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized));
        T value = body.read(in);
        if (in.available() > 0) {
            throw new IOException(in.available() + " unexpected trailing bytes after a serialized value");
        }
        return value;
    }

    /** Fails with a clear message when {@code actual} is not a version this serializer wrote. */
    public static void checkVersion(int expected, int actual, String what) throws IOException {
        if (actual != expected) {
            throw new IOException("cannot read " + what + " written in serializer version " + actual
                    + "; this build reads version " + expected);
        }
    }

    /**
     * Reads a length prefix written before a collection or byte array and checks it against the
     * bytes that are left, so corrupt input fails instead of allocating gigabytes.
     */
    public static int readLength(DataInputStream in, String what) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > in.available()) {
            throw new IOException("corrupt " + what + ": length " + length + " with " + in.available()
                    + " bytes left");
        }
        return length;
    }

    private static void checkLength(int expected, byte[] serialized, String what) throws IOException {
        if (serialized.length != expected) {
            throw new IOException("corrupt " + what + ": " + serialized.length + " bytes, expected " + expected);
        }
    }

    /** Writes a value with a {@link DataOutputStream}. */
    @FunctionalInterface
    public interface DataWriter {
        void write(DataOutputStream out) throws IOException;
    }

    /** Reads a value with a {@link DataInputStream}. */
    @FunctionalInterface
    public interface DataReader<T> {
        T read(DataInputStream in) throws IOException;
    }
}
