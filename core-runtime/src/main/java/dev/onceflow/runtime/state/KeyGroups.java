package dev.onceflow.runtime.state;

/**
 * Keys hash to a fixed number of key groups (the job's max parallelism); each parallel subtask
 * owns a contiguous range of them. State is snapshotted per key group, so a savepoint restores at
 * any parallelism up to the max: ranges are recomputed and groups move whole.
 */
public final class KeyGroups {

    private KeyGroups() {
    }

    /** The key group of a key. Uses {@code hashCode}, so key types need a stable one (String, Long). */
    public static int keyGroupOf(Object key, int maxParallelism) {
        return Math.floorMod(mix(key.hashCode()), maxParallelism);
    }

    /**
     * The key group of a key that must belong to the subtask owning groups
     * {@code firstGroup..endGroup-1}.
     *
     * @throws IllegalStateException if it belongs to another subtask: the key reached the wrong
     *     channel, or its {@code hashCode} is not stable across JVMs
     */
    public static int ownedGroupOf(Object key, int maxParallelism, int firstGroup, int endGroup) {
        return owned(key, keyGroupOf(key, maxParallelism), firstGroup, endGroup);
    }

    /**
     * {@code group}, the key group of {@code key} computed earlier, if it is one of
     * {@code firstGroup..endGroup-1}.
     *
     * @throws IllegalStateException if it belongs to another subtask, as {@link #ownedGroupOf}
     */
    public static int owned(Object key, int group, int firstGroup, int endGroup) {
        if (group < firstGroup || group >= endGroup) {
            throw new IllegalStateException("key " + key + " in key group " + group + " reached the subtask owning groups "
                    + firstGroup + ".." + (endGroup - 1));
        }
        return group;
    }

    /** The subtask that owns a key group. */
    public static int subtaskOf(int keyGroup, int maxParallelism, int parallelism) {
        return keyGroup * parallelism / maxParallelism;
    }

    /** First key group (inclusive) owned by a subtask. */
    public static int firstGroup(int subtask, int maxParallelism, int parallelism) {
        return (subtask * maxParallelism + parallelism - 1) / parallelism;
    }

    /** Last key group (exclusive) owned by a subtask. */
    public static int endGroup(int subtask, int maxParallelism, int parallelism) {
        return firstGroup(subtask + 1, maxParallelism, parallelism);
    }

    // murmur3 finalizer: spreads poorly distributed hash codes (small integers) over all groups
    private static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
