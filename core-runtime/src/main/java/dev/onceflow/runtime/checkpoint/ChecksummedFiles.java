package dev.onceflow.runtime.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The envelope of every checkpoint file: magic, format version, payload length, payload, CRC32C.
 * Checkpoint files are input: a reader trusts nothing until the length and checksum match, so a
 * truncated or bit-flipped file is rejected with a message instead of being restored.
 */
public final class ChecksummedFiles {

    private static final int MAGIC = 0x4F46434B; // "OFCK"
    private static final int FORMAT_VERSION = 1;
    private static final int HEADER = Integer.BYTES * 2 + Long.BYTES;
    private static final int TRAILER = Integer.BYTES;

    private ChecksummedFiles() {
    }

    /**
     * Writes {@code payload} in its envelope to {@code target}, durably and atomically (rule CFS-1
     * of {@link CheckpointFileSystem}), so a crash leaves either no file or the complete one.
     *
     * @return the checksum of the payload
     */
    public static int writeAtomically(CheckpointFileSystem fs, CheckpointLocation target, byte[] payload)
            throws IOException {
        return writeAtomically(fs, target, payload.length, out -> out.write(payload));
    }

    /** Writes a payload of a length known in advance. */
    @FunctionalInterface
    public interface PayloadWriter {
        void write(java.io.DataOutputStream out) throws IOException;
    }

    /**
     * Like {@link #writeAtomically(CheckpointFileSystem, CheckpointLocation, byte[])} for a payload
     * of exactly {@code payloadLength} bytes that {@code writer} writes as it encodes it: the file
     * is streamed to storage with its checksum computed on the way, so no buffer of the file's size
     * is allocated (which matters for hundreds of megabytes of keyed state).
     *
     * @throws IllegalStateException if the writer wrote another number of bytes; nothing is then
     *     renamed into place
     */
    public static int writeAtomically(CheckpointFileSystem fs, CheckpointLocation target, long payloadLength,
            PayloadWriter writer) throws IOException {
        return write(fs, target, payloadLength, writer, true);
    }

    /**
     * Like {@link #writeAtomically(CheckpointFileSystem, CheckpointLocation, long, PayloadWriter)},
     * durably but not atomically (rule CFS-6 of {@link CheckpointFileSystem}): for files that only
     * a later atomic write in the same directory makes reachable, such as a task's state file,
     * which only {@code _metadata} names. A crash before that write may leave a torn file, which
     * nothing reads.
     */
    public static int writeDurably(CheckpointFileSystem fs, CheckpointLocation target, long payloadLength,
            PayloadWriter writer) throws IOException {
        return write(fs, target, payloadLength, writer, false);
    }

    private static int write(CheckpointFileSystem fs, CheckpointLocation target, long payloadLength,
            PayloadWriter writer, boolean atomic) throws IOException {
        // No limit but the long: task state and shared files are read as streams (readStreaming,
        // copyPayload), only metadata into one array.
        int[] checksum = new int[1];
        CheckpointFileSystem.Content envelopeContent = file -> {
            java.io.DataOutputStream envelope = new java.io.DataOutputStream(file);
            envelope.writeInt(MAGIC);
            envelope.writeInt(FORMAT_VERSION);
            envelope.writeLong(payloadLength);
            ChecksummingStream payload = new ChecksummingStream(file);
            // Buffered so the CRC sees large chunks, not the single bytes DataOutputStream writes.
            java.io.BufferedOutputStream buffered = new java.io.BufferedOutputStream(payload, 1 << 16);
            java.io.DataOutputStream out = new java.io.DataOutputStream(buffered);
            writer.write(out);
            out.flush();
            if (payload.count != payloadLength) {
                throw new IllegalStateException(target + ": the payload is " + payload.count + " bytes, not the "
                        + payloadLength + " announced");
            }
            checksum[0] = (int) payload.crc.getValue();
            envelope.writeInt(checksum[0]);
            envelope.flush();
        };
        if (atomic) {
            fs.writeAtomically(target, envelopeContent);
        } else {
            fs.writeDurably(target, envelopeContent);
        }
        return checksum[0];
    }

    /** Passes bytes on, counting them and computing their CRC32C. */
    private static final class ChecksummingStream extends java.io.FilterOutputStream {
        final CRC32C crc = new CRC32C();
        long count;

        ChecksummingStream(java.io.OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            crc.update(b);
            count++;
            out.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            crc.update(bytes, offset, length);
            count += length;
            out.write(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() {
            // The file system closes the file; closing here would end the envelope before its trailer.
        }
    }

    /**
     * Reads and verifies a file written by {@link #writeAtomically}.
     *
     * @throws CorruptCheckpointException if the file is truncated, has trailing bytes, a wrong
     *     magic number or version, or a checksum mismatch
     */
    public static byte[] read(CheckpointFileSystem fs, CheckpointLocation file) throws IOException {
        java.io.ByteArrayOutputStream payload = new java.io.ByteArrayOutputStream(1 << 12);
        copyPayload(fs, file, payload);
        return payload.toByteArray();
    }

    /**
     * Like {@link #read}, streaming the payload into {@code out} in pieces instead of returning
     * it, so a file of any size passes through a small buffer. What reached {@code out} before a
     * {@link CorruptCheckpointException} is not to be used.
     */
    public static void copyPayload(CheckpointFileSystem fs, CheckpointLocation file, java.io.OutputStream out)
            throws IOException {
        readStreaming(fs, file, payload -> payload.in().transferTo(out));
    }

    /** Parses a payload as it streams past; {@link Payload#position()} says how far it got. */
    @FunctionalInterface
    public interface PayloadParser<T> {
        T parse(Payload payload) throws IOException;
    }

    /** A payload being read: its bytes, how many there are, and how many were consumed. */
    public interface Payload {
        java.io.DataInputStream in();

        /** The payload's length, as the envelope's header says. */
        long length();

        /** Bytes consumed so far; the payload starts at file offset {@link #PAYLOAD_OFFSET}. */
        long position();

        default long remaining() {
            return length() - position();
        }
    }

    /** Where a payload starts in its file: after the header. */
    public static final long PAYLOAD_OFFSET = HEADER;

    /** What {@link #readStreaming} found: the parser's result and the payload's length and CRC32C. */
    public record Parsed<T>(T value, long length, int checksum) {
    }

    /**
     * Verifies a file as {@link #read} does while {@code parser} reads its payload from a stream,
     * so no part of the file need be held in memory. The parser must consume the whole payload
     * (it may skip parts with {@code skipNBytes}; they are read for the checksum all the same). If
     * it fails on a file whose checksum fails too, the checksum failure is reported.
     */
    public static <T> Parsed<T> readStreaming(CheckpointFileSystem fs, CheckpointLocation file, PayloadParser<T> parser)
            throws IOException {
        try (java.io.InputStream raw = fs.open(file)) {
            byte[] header = new byte[HEADER];
            int got = raw.readNBytes(header, 0, HEADER);
            if (got < HEADER) {
                throw new CorruptCheckpointException(file + " is truncated (" + got + " bytes)");
            }
            ByteBuffer buffer = ByteBuffer.wrap(header);
            if (buffer.getInt() != MAGIC) {
                throw new CorruptCheckpointException(file + " is not a checkpoint file (bad magic number)");
            }
            int version = buffer.getInt();
            if (version != FORMAT_VERSION) {
                throw new CorruptCheckpointException(file + " has unknown format version " + version);
            }
            long length = buffer.getLong();
            if (length < 0) {
                throw new CorruptCheckpointException(file + " has a negative payload length " + length);
            }
            ChecksummingInput payload = new ChecksummingInput(raw, length);
            CountingInput counted = new CountingInput(new java.io.BufferedInputStream(payload, 1 << 16));
            java.io.DataInputStream in = new java.io.DataInputStream(counted);
            Payload view = new Payload() {
                @Override
                public java.io.DataInputStream in() {
                    return in;
                }

                @Override
                public long length() {
                    return length;
                }

                @Override
                public long position() {
                    return counted.count;
                }
            };
            T value;
            try {
                value = parser.parse(view);
                if (in.read() >= 0) {
                    throw new IOException("the payload goes on after its content (at byte " + (counted.count - 1)
                            + " of " + length + ")");
                }
            } catch (IOException | RuntimeException e) {
                if (Thread.currentThread().isInterrupted() || e instanceof java.io.InterruptedIOException) {
                    throw e; // stopped: no reading on to the end of the file to explain anything
                }
                // A damaged file fails to parse as often as its checksum: say which it is.
                try {
                    in.transferTo(java.io.OutputStream.nullOutputStream());
                    if (payload.ended) {
                        throw endedEarly(file, length, payload.count);
                    }
                    byte[] trailer = raw.readNBytes(TRAILER);
                    if (trailer.length == TRAILER && ByteBuffer.wrap(trailer).getInt() != (int) payload.crc.getValue()) {
                        throw checksumMismatch(file, ByteBuffer.wrap(trailer).getInt(), payload.crc);
                    }
                } catch (CorruptCheckpointException corrupt) {
                    corrupt.addSuppressed(e);
                    throw corrupt;
                } catch (IOException | RuntimeException unreadable) {
                    e.addSuppressed(unreadable);
                }
                throw e;
            }
            if (payload.ended) {
                throw endedEarly(file, length, payload.count);
            }
            byte[] trailer = raw.readNBytes(TRAILER);
            if (trailer.length < TRAILER) {
                throw endedEarly(file, length, length + trailer.length);
            }
            long extra = raw.transferTo(java.io.OutputStream.nullOutputStream());
            if (extra > 0) {
                throw sizeMismatch(file, length, length + extra);
            }
            int expected = ByteBuffer.wrap(trailer).getInt();
            if ((int) payload.crc.getValue() != expected) {
                throw checksumMismatch(file, expected, payload.crc);
            }
            return new Parsed<>(value, length, expected);
        }
    }

    private static CorruptCheckpointException checksumMismatch(CheckpointLocation file, int stored, CRC32C computed) {
        return new CorruptCheckpointException(file + " fails its checksum (stored " + Integer.toHexString(stored)
                + ", computed " + Integer.toHexString((int) computed.getValue()) + ")");
    }

    /**
     * At most {@code limit} bytes of a stream, each added to a CRC32C; skipping reads the bytes
     * too, so the checksum covers them. Remembers whether the stream ended before the limit.
     */
    private static final class ChecksummingInput extends java.io.InputStream {
        final CRC32C crc = new CRC32C();
        private final java.io.InputStream in;
        private final long limit;
        long count;
        boolean ended;

        ChecksummingInput(java.io.InputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] bytes, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            if (count >= limit) {
                return -1;
            }
            int n = in.read(bytes, offset, (int) Math.min(length, limit - count));
            if (n < 0) {
                ended = true;
                return -1;
            }
            crc.update(bytes, offset, n);
            count += n;
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            byte[] scratch = new byte[(int) Math.min(n, 1 << 16)];
            long skipped = 0;
            while (skipped < n) {
                int read = read(scratch, 0, (int) Math.min(scratch.length, n - skipped));
                if (read < 0) {
                    break;
                }
                skipped += read;
            }
            return skipped;
        }

        @Override
        public int available() throws IOException {
            return (int) Math.min(in.available(), limit - count);
        }

        @Override
        public void close() {
            // The caller closes the file.
        }
    }

    /** Counts the bytes a parser consumed, skipped ones included. */
    private static final class CountingInput extends java.io.FilterInputStream {
        long count;

        CountingInput(java.io.InputStream in) {
            super(in);
        }

        @Override
        public boolean markSupported() {
            return false; // a reset would make the count lie about the position
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] bytes, int offset, int length) throws IOException {
            int n = in.read(bytes, offset, length);
            if (n > 0) {
                count += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = in.skip(n);
            count += skipped;
            return skipped;
        }
    }

    /** The file ended {@code afterHeader} bytes after its header, before its trailer did. */
    private static CorruptCheckpointException endedEarly(CheckpointLocation file, long announced, long afterHeader) {
        if (afterHeader < TRAILER) {
            return new CorruptCheckpointException(file + " is truncated (" + (HEADER + afterHeader) + " bytes)");
        }
        return sizeMismatch(file, announced, afterHeader - TRAILER);
    }

    private static CorruptCheckpointException sizeMismatch(CheckpointLocation file, long announced, long holds) {
        return new CorruptCheckpointException(file + " is truncated or padded: header says " + announced
                + " payload bytes, file holds " + holds);
    }

    /** The CRC32C of {@code payload}, as stored in the envelope and in checkpoint metadata. */
    public static int checksum(byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        return (int) crc.getValue();
    }
}
