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
        if (payloadLength > Integer.MAX_VALUE - HEADER - TRAILER - 8) {
            // Readers load a state file into one array.
            throw new IOException(target + ": " + payloadLength + " bytes of state is more than one state file holds"
                    + " (2 GiB); raise the parallelism");
        }
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
        try (java.io.InputStream in = fs.open(file)) {
            byte[] header = new byte[HEADER];
            int got = in.readNBytes(header, 0, HEADER);
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
            CRC32C crc = new CRC32C();
            byte[] chunk = new byte[1 << 16];
            long copied = 0;
            while (copied < length) {
                int n = in.read(chunk, 0, (int) Math.min(chunk.length, length - copied));
                if (n < 0) {
                    if (copied + HEADER < HEADER + TRAILER) {
                        throw new CorruptCheckpointException(file + " is truncated (" + (copied + HEADER) + " bytes)");
                    }
                    throw sizeMismatch(file, length, copied - TRAILER);
                }
                crc.update(chunk, 0, n);
                out.write(chunk, 0, n);
                copied += n;
            }
            byte[] trailer = new byte[TRAILER];
            int trailerBytes = in.readNBytes(trailer, 0, TRAILER);
            if (trailerBytes < TRAILER) {
                if (length + HEADER + trailerBytes < HEADER + TRAILER) {
                    throw new CorruptCheckpointException(file + " is truncated (" + (length + HEADER + trailerBytes)
                            + " bytes)");
                }
                throw sizeMismatch(file, length, length + trailerBytes - TRAILER);
            }
            long extra = in.transferTo(java.io.OutputStream.nullOutputStream());
            if (extra > 0) {
                throw sizeMismatch(file, length, length + extra);
            }
            int expected = ByteBuffer.wrap(trailer).getInt();
            if ((int) crc.getValue() != expected) {
                throw new CorruptCheckpointException(file + " fails its checksum (stored " + Integer.toHexString(expected)
                        + ", computed " + Integer.toHexString((int) crc.getValue()) + ")");
            }
        }
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
