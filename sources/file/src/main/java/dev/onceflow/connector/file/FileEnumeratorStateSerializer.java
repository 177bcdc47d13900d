package dev.onceflow.connector.file;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Writes {@link FileEnumeratorState} into checkpoints. Version 1: the number of unassigned splits
 * (int) and each split as in {@link FileSplitSerializer} version 1, then the number of discovered
 * paths (int) and each path (int byte length + UTF-8 bytes), sorted so equal states give equal bytes.
 */
public final class FileEnumeratorStateSerializer implements SimpleVersionedSerializer<FileEnumeratorState> {

    /** The only instance; serializers are stateless (SER-4). */
    public static final FileEnumeratorStateSerializer INSTANCE = new FileEnumeratorStateSerializer();

    private static final int VERSION = 1;

    private FileEnumeratorStateSerializer() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public byte[] serialize(FileEnumeratorState state) throws IOException {
        return Serializers.write(out -> {
            out.writeInt(state.unassigned().size());
            for (FileSplit split : state.unassigned()) {
                FileSplitSerializer.write(split, out);
            }
            out.writeInt(state.discovered().size());
            for (String path : new TreeSet<>(state.discovered())) {
                FileSplitSerializer.writeString(path, out);
            }
        });
    }

    @Override
    public FileEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        Serializers.checkVersion(VERSION, version, "file enumerator state");
        return Serializers.read(serialized, in -> {
            int splitCount = Serializers.readLength(in, "file enumerator state");
            List<FileSplit> unassigned = new ArrayList<>(splitCount);
            for (int i = 0; i < splitCount; i++) {
                unassigned.add(FileSplitSerializer.read(in));
            }
            int pathCount = Serializers.readLength(in, "file enumerator state");
            Set<String> discovered = new HashSet<>();
            for (int i = 0; i < pathCount; i++) {
                discovered.add(FileSplitSerializer.readString(in));
            }
            return new FileEnumeratorState(unassigned, discovered);
        });
    }
}
