package dev.onceflow.runtime.task;

import dev.onceflow.runtime.graph.Transformation;
import dev.onceflow.runtime.state.KeyGroups;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The records an unaligned checkpoint found in flight into one stage: how they are written into
 * the snapshot of the stage's first operator and read back on restore, at any parallelism.
 *
 * <p>They travel as union state under {@link #STATE_NAME}, one entry per channel that had any, so
 * every new subtask sees all of them and keeps those it owns now: by key group when the stage's
 * input is partitioned by key, otherwise those of the former subtask {@code former % parallelism}.
 *
 * <p>An entry is {@code int format (1), int former subtask, int channel, int serializer version,
 * int count}, then per record {@code long timestamp, int length, bytes}. It is read defensively:
 * every length is checked against what is left, and nothing may follow the last record.
 */
public final class InFlightRecords {

    /** The union-state name of the stage's first operator under which the records are stored. */
    public static final String STATE_NAME = "onceflow.in-flight-records";

    private static final int FORMAT = 1;
    private static final int HEADER_BYTES = 5 * Integer.BYTES;
    private static final int RECORD_OVERHEAD = Long.BYTES + Integer.BYTES;

    private final String stage;
    private final SimpleVersionedSerializer<Object> serializer;
    private final Transformation.Partitioning partitioning;
    private final int maxParallelism;
    private final LongConsumer stored;

    /**
     * @param stage the stage's first operator uid, for messages
     * @param serializer the records' serializer (the previous stage's {@code recordSerializer})
     * @param partitioning how records reach the stage
     * @param stored told how many records a checkpoint stored (a meter)
     */
    public InFlightRecords(String stage, SimpleVersionedSerializer<Object> serializer,
            Transformation.Partitioning partitioning, int maxParallelism, LongConsumer stored) {
        this.stage = stage;
        this.serializer = serializer;
        this.partitioning = partitioning;
        this.maxParallelism = maxParallelism;
        this.stored = stored;
    }

    /** A record with the timestamp it travelled with. */
    public record Timed(Object record, long timestamp) {
    }

    /** One entry per channel with records, in channel order; called on a snapshot thread. */
    List<byte[]> encode(int subtask, List<List<StreamElement.Records>> perChannel) throws IOException {
        List<byte[]> entries = new ArrayList<>();
        long total = 0;
        for (int channel = 0; channel < perChannel.size(); channel++) {
            int count = 0;
            for (StreamElement.Records batch : perChannel.get(channel)) {
                count += batch.records().size();
            }
            if (count == 0) {
                continue;
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(FORMAT);
            out.writeInt(subtask);
            out.writeInt(channel);
            out.writeInt(serializer.version());
            out.writeInt(count);
            for (StreamElement.Records batch : perChannel.get(channel)) {
                List<Object> records = batch.records();
                for (int i = 0; i < records.size(); i++) {
                    byte[] record = serializer.serialize(records.get(i));
                    out.writeLong(batch.timestamp(i));
                    out.writeInt(record.length);
                    out.write(record);
                }
            }
            out.flush();
            entries.add(bytes.toByteArray());
            total += count;
        }
        stored.accept(total);
        return entries;
    }

    /**
     * The records of {@code entries} (of every former subtask) that {@code subtask} owns at
     * {@code parallelism}, each channel's in the order they were sent.
     *
     * @throws IOException naming the stage if an entry is malformed or its format is unknown
     */
    List<Timed> decode(List<byte[]> entries, int subtask, int parallelism) throws IOException {
        List<Timed> owned = new ArrayList<>();
        for (byte[] entry : entries) {
            try {
                decodeEntry(ByteBuffer.wrap(entry), subtask, parallelism, owned);
            } catch (BufferUnderflowException e) {
                throw corrupt("an entry of " + entry.length + " bytes ends early");
            }
        }
        return owned;
    }

    private void decodeEntry(ByteBuffer in, int subtask, int parallelism, List<Timed> owned) throws IOException {
        if (in.remaining() < HEADER_BYTES) {
            throw corrupt("an entry of " + in.remaining() + " bytes is shorter than its header");
        }
        int format = in.getInt();
        if (format != FORMAT) {
            throw corrupt("an entry has format " + format + "; this version reads format " + FORMAT);
        }
        int former = in.getInt();
        int channel = in.getInt();
        int version = in.getInt();
        int count = in.getInt();
        if (former < 0 || channel < 0 || count < 0 || (long) count * RECORD_OVERHEAD > in.remaining()) {
            throw corrupt("an entry claims " + count + " records of former subtask " + former + ", channel "
                    + channel + " in " + in.remaining() + " bytes");
        }
        boolean hashed = partitioning instanceof Transformation.Partitioning.Hash;
        boolean mine = !hashed && former % parallelism == subtask;
        for (int i = 0; i < count; i++) {
            long timestamp = in.getLong();
            int length = in.getInt();
            if (length < 0 || length > in.remaining()) {
                throw corrupt("record " + i + " of former subtask " + former + ", channel " + channel + " claims "
                        + length + " bytes, " + in.remaining() + " are left");
            }
            if (!hashed && !mine) {
                in.position(in.position() + length);
                continue;
            }
            byte[] bytes = new byte[length];
            in.get(bytes);
            Object record = serializer.deserialize(version, bytes);
            if (!hashed || ownsKeyOf(record, subtask, parallelism)) {
                owned.add(new Timed(record, timestamp));
            }
        }
        if (in.hasRemaining()) {
            throw corrupt(in.remaining() + " bytes follow the last record of former subtask " + former + ", channel "
                    + channel);
        }
    }

    private boolean ownsKeyOf(Object record, int subtask, int parallelism) throws IOException {
        Transformation.Partitioning.Hash hash = (Transformation.Partitioning.Hash) partitioning;
        try {
            int group = KeyGroups.keyGroupOf(hash.keySelector().getKey(record), maxParallelism);
            return KeyGroups.subtaskOf(group, maxParallelism, parallelism) == subtask;
        } catch (Exception e) {
            throw new IOException("the key of a record in flight into " + stage + " cannot be computed: " + e, e);
        }
    }

    private IOException corrupt(String what) {
        return new IOException("the records in flight into " + stage + " in this checkpoint are corrupt: " + what);
    }
}
