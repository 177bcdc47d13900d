package dev.onceflow.runtime.checkpoint;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Restored key groups whose blobs stay in their state files until a backend asks for them: a
 * restore holds one key group's bytes at a time instead of the whole checkpoint, and groups
 * another subtask owns are never read. The files were verified whole (length, CRC32C) when the
 * checkpoint was loaded; a blob is read again on {@link #get} and on iteration of the entries.
 *
 * <p>The same holds for a snapshot a backend wrote to a local file as it scanned its state (the
 * RocksDB backend does, for full checkpoints and savepoints): the task state file is then written
 * from that file one group at a time, and {@link #close()} deletes it.
 *
 * <p>Read only. {@link #get} and the entries' {@code getValue} throw {@link UncheckedIOException}
 * when the file cannot be read any more.
 */
public final class StoredKeyGroups extends AbstractMap<Integer, byte[]>
        implements SortedMap<Integer, byte[]>, AutoCloseable {

    /** Where one key group's blob is: in memory, or a range of a file. */
    interface Blob {
        byte[] load() throws IOException;

        int length();
    }

    private final TreeMap<Integer, Blob> blobs;
    private Runnable closeAction;

    private StoredKeyGroups(TreeMap<Integer, Blob> blobs, Runnable onClose) {
        this.blobs = blobs;
        this.closeAction = onClose;
    }

    /**
     * A blob of {@code length} bytes at {@code offset} (from the start) of file {@code file}, whose
     * CRC32C, when read, must be {@code checksum} (as it was when the file was verified).
     */
    static Blob inFile(CheckpointFileSystem fs, CheckpointLocation file, long offset, int length, int checksum) {
        return inFile(fs, file, offset, length, java.util.OptionalInt.of(checksum));
    }

    private static Blob inFile(CheckpointFileSystem fs, CheckpointLocation file, long offset, int length,
            java.util.OptionalInt checksum) {
        return new Blob() {
            @Override
            public byte[] load() throws IOException {
                byte[] bytes;
                try (InputStream in = fs.open(file)) {
                    in.skipNBytes(offset);
                    bytes = in.readNBytes(length);
                } catch (java.io.EOFException e) {
                    throw new CorruptCheckpointException(file + " ended before key group bytes at " + offset
                            + ": it changed since it was verified", e);
                }
                if (bytes.length != length) {
                    throw new CorruptCheckpointException(file + " ended inside a key group (at " + offset + ", "
                            + length + " bytes): it changed since it was verified");
                }
                if (checksum.isPresent() && ChecksummedFiles.checksum(bytes) != checksum.getAsInt()) {
                    throw new CorruptCheckpointException(file + ": the key group at " + offset
                            + " fails its checksum: the file changed since it was verified");
                }
                return bytes;
            }

            @Override
            public String toString() {
                return file + " at " + offset;
            }

            @Override
            public int length() {
                return length;
            }
        };
    }

    private static Blob inMemory(byte[] bytes) {
        return new Blob() {
            @Override
            public byte[] load() {
                return bytes;
            }

            @Override
            public int length() {
                return bytes.length;
            }

            @Override
            public String toString() {
                return "in memory";
            }
        };
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Collects key groups of one or more former subtasks, or of one snapshot written to a local file. */
    public static final class Builder {
        private final TreeMap<Integer, Blob> blobs = new TreeMap<>();
        private Runnable onClose = () -> { };

        Builder put(int group, Blob blob) {
            blobs.put(group, blob);
            return this;
        }

        /** A key group of {@code length} bytes at {@code offset} of a local file. */
        public Builder putRange(int group, java.nio.file.Path file, long offset, int length) {
            // Written by this process a moment ago, and read once: no checksum of its own.
            return put(group, inFile(LocalCheckpointFileSystem.INSTANCE, CheckpointLocation.of(file), offset, length,
                    java.util.OptionalInt.empty()));
        }

        /** Adds every group of {@code groups}, without reading the blobs of stored ones. */
        Builder putAll(Map<Integer, byte[]> groups) {
            if (groups instanceof StoredKeyGroups stored) {
                blobs.putAll(stored.blobs);
            } else {
                groups.forEach((group, bytes) -> blobs.put(group, inMemory(bytes)));
            }
            return this;
        }

        /** What {@link StoredKeyGroups#close()} does (deleting a local file), once. */
        public Builder onClose(Runnable action) {
            onClose = action;
            return this;
        }

        public StoredKeyGroups build() {
            return new StoredKeyGroups(new TreeMap<>(blobs), onClose);
        }
    }

    /** The size of key group {@code group}'s blob, without reading it. */
    public int length(int group) {
        Blob blob = blobs.get(group);
        if (blob == null) {
            throw new IllegalArgumentException("no key group " + group);
        }
        return blob.length();
    }

    /** Releases what holds the blobs (a backend's local snapshot file); later reads fail. Idempotent. */
    @Override
    public void close() {
        Runnable action;
        synchronized (this) {
            action = closeAction;
            closeAction = null;
        }
        if (action != null) {
            action.run();
        }
    }

    @Override
    public byte[] get(Object key) {
        Blob blob = blobs.get(key);
        return blob == null ? null : load((Integer) key, blob);
    }

    private static byte[] load(int group, Blob blob) {
        try {
            return blob.load();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read key group " + group + " (" + blob + "): " + e.getMessage(), e);
        }
    }

    @Override
    public boolean containsKey(Object key) {
        return blobs.containsKey(key);
    }

    @Override
    public int size() {
        return blobs.size();
    }

    @Override
    public Set<Integer> keySet() {
        return java.util.Collections.unmodifiableSortedSet(blobs.navigableKeySet());
    }

    @Override
    public Set<Entry<Integer, byte[]>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<Integer, byte[]>> iterator() {
                Iterator<Entry<Integer, Blob>> it = blobs.entrySet().iterator();
                return new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return it.hasNext();
                    }

                    @Override
                    public Entry<Integer, byte[]> next() {
                        Entry<Integer, Blob> next = it.next();
                        return new Entry<>() {
                            @Override
                            public Integer getKey() {
                                return next.getKey();
                            }

                            @Override
                            public byte[] getValue() {
                                return load(next.getKey(), next.getValue());
                            }

                            @Override
                            public byte[] setValue(byte[] value) {
                                throw new UnsupportedOperationException("restored key groups are read only");
                            }
                        };
                    }
                };
            }

            @Override
            public int size() {
                return blobs.size();
            }
        };
    }

    /** Without reading the blobs (the map's default would read them all). */
    @Override
    public String toString() {
        return "StoredKeyGroups" + blobs.keySet();
    }

    @Override
    public Comparator<? super Integer> comparator() {
        return null;
    }

    @Override
    public SortedMap<Integer, byte[]> subMap(Integer fromKey, Integer toKey) {
        return new StoredKeyGroups(new TreeMap<>(blobs.subMap(fromKey, toKey)), () -> { });
    }

    @Override
    public SortedMap<Integer, byte[]> headMap(Integer toKey) {
        return new StoredKeyGroups(new TreeMap<>(blobs.headMap(toKey)), () -> { });
    }

    @Override
    public SortedMap<Integer, byte[]> tailMap(Integer fromKey) {
        return new StoredKeyGroups(new TreeMap<>(blobs.tailMap(fromKey)), () -> { });
    }

    @Override
    public Integer firstKey() {
        return blobs.firstKey();
    }

    @Override
    public Integer lastKey() {
        return blobs.lastKey();
    }
}
