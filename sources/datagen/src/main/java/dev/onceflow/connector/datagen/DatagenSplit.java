package dev.onceflow.connector.datagen;

import dev.onceflow.spi.source.SourceSplit;

/**
 * One strided slice of the generated sequence: split {@code index} of {@code splitCount} owns the
 * sequence numbers {@code index, index + splitCount, index + 2 * splitCount, ...} from
 * {@code next} on and below {@code end}. Assigned on demand, a bounded source's splits are chunks:
 * each covers one range of the sequence, so {@code next} starts at that range and {@code end} is
 * where it ends.
 * Its position is {@code next}, the first sequence number not yet emitted, which is all a restore
 * needs to continue exactly after the last emitted record.
 *
 * <p>Striding (rather than contiguous ranges) keeps the output of an unbounded source spread over
 * every split without knowing the total in advance.
 *
 * @param index this split's index, {@code 0 <= index < splitCount}
 * @param splitCount number of splits of the source, the stride
 * @param next the next sequence number to emit
 * @param end exclusive upper bound of the sequence; {@link Long#MAX_VALUE} when unbounded
 */
public record DatagenSplit(int index, int splitCount, long next, long end) implements SourceSplit {

    public DatagenSplit {
        if (splitCount < 1 || index < 0 || index >= splitCount) {
            throw new IllegalArgumentException("split index " + index + " outside split count " + splitCount);
        }
        if (next < 0 || end < 0) {
            throw new IllegalArgumentException("negative position: next " + next + ", end " + end);
        }
        if (next < end && next % splitCount != index) {
            // Read back from a checkpoint, such a split would emit another split's records.
            throw new IllegalArgumentException("position " + next + " is not in split " + index + " of " + splitCount);
        }
    }

    /** The first split {@code index} of {@code splitCount}, not yet read. */
    public static DatagenSplit initial(int index, int splitCount, long end) {
        return new DatagenSplit(index, splitCount, index, end);
    }

    @Override
    public String splitId() {
        // The chunks of a bounded source share their index; their ends tell them apart.
        return end == Long.MAX_VALUE ? "datagen-" + index : "datagen-" + index + "-until-" + end;
    }

    /** Whether every sequence number of this split was emitted. */
    public boolean isExhausted() {
        return next >= end;
    }

    /** This split after emitting {@code next}. */
    public DatagenSplit advance() {
        return new DatagenSplit(index, splitCount, following(next, splitCount, end), end);
    }

    /** The position after emitting {@code next}: one stride on, or {@code end} when that passes it. */
    static long following(long next, int splitCount, long end) {
        long following = next + splitCount;
        // Guards the overflow near Long.MAX_VALUE of an unbounded split: past the end means done.
        return following < next || following > end ? end : following;
    }
}
