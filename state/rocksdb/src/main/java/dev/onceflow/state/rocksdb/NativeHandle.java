package dev.onceflow.state.rocksdb;

import dev.onceflow.runtime.state.NativeKeyedState;
import dev.onceflow.runtime.state.SharedStateStore;
import dev.onceflow.spi.serialization.Serializers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What an incremental RocksDB checkpoint of one subtask records: the subtask's key groups, the
 * key serializer version, the state names by id, the SST files by shared reference, and the
 * small files (CURRENT, MANIFEST, OPTIONS) inline.
 *
 * <p>Format 1: {@code int format, int keySerializerVersion, int firstGroup, int endGroup,
 * int nameCount, UTF names..., int fileCount}, then per file {@code byte kind, UTF name} and
 * either {@code UTF reference} (kind 1, shared) or {@code int length, bytes} (kind 2, inline).
 * It is read back from a checkpoint, so it is input: names are checked to be plain file names and
 * references to be among the files the checkpoint lists.
 */
record NativeHandle(int keySerializerVersion, int firstGroup, int endGroup, List<String> stateNames,
        List<SharedFile> sharedFiles, List<InlineFile> inlineFiles) {

    private static final int FORMAT_VERSION = 1;
    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,200}");
    private static final int SHARED = 1;
    private static final int INLINE = 2;

    record SharedFile(String name, String reference) {
    }

    record InlineFile(String name, byte[] bytes) {
    }

    /** Uploads an SST file, or refers to an earlier upload; returns the reference. */
    interface Uploader {
        String reference(Path sstFile) throws IOException;
    }

    /** Records a staged RocksDB checkpoint directory: SST files through {@code uploader}, the rest inline. */
    static NativeHandle stage(Path dir, int keySerializerVersion, int firstGroup, int endGroup, List<String> stateNames,
            Uploader uploader) throws IOException {
        List<Path> files;
        try (Stream<Path> listing = Files.list(dir)) {
            files = listing.sorted().toList();
        }
        List<SharedFile> shared = new ArrayList<>();
        List<InlineFile> inline = new ArrayList<>();
        for (Path file : files) {
            String name = file.getFileName().toString();
            if (!Files.isRegularFile(file) || !FILE_NAME.matcher(name).matches()) {
                throw new IOException("unexpected entry " + name + " in the RocksDB checkpoint " + dir);
            }
            if (name.endsWith(".sst")) {
                shared.add(new SharedFile(name, uploader.reference(file)));
            } else {
                inline.add(new InlineFile(name, Files.readAllBytes(file)));
            }
        }
        return new NativeHandle(keySerializerVersion, firstGroup, endGroup, List.copyOf(stateNames), shared, inline);
    }

    byte[] encode() throws IOException {
        return Serializers.write(out -> {
            out.writeInt(FORMAT_VERSION);
            out.writeInt(keySerializerVersion);
            out.writeInt(firstGroup);
            out.writeInt(endGroup);
            out.writeInt(stateNames.size());
            for (String name : stateNames) {
                out.writeUTF(name);
            }
            out.writeInt(sharedFiles.size() + inlineFiles.size());
            for (SharedFile file : sharedFiles) {
                out.writeByte(SHARED);
                out.writeUTF(file.name());
                out.writeUTF(file.reference());
            }
            for (InlineFile file : inlineFiles) {
                out.writeByte(INLINE);
                out.writeUTF(file.name());
                out.writeInt(file.bytes().length);
                out.write(file.bytes());
            }
        });
    }

    static NativeHandle parse(NativeKeyedState state) throws IOException {
        Set<String> listed = new HashSet<>(state.sharedFiles());
        return Serializers.read(state.handle(), in -> {
            Serializers.checkVersion(FORMAT_VERSION, in.readInt(), "RocksDB checkpoint handle");
            int keyVersion = in.readInt();
            int first = in.readInt();
            int end = in.readInt();
            if (first != state.firstGroup() || end != state.endGroup()) {
                throw new IOException("RocksDB checkpoint handle for key groups " + first + ".." + (end - 1)
                        + " is filed under " + state.firstGroup() + ".." + (state.endGroup() - 1));
            }
            int nameCount = Serializers.readLength(in, "state names");
            if (nameCount > 1 << 16) {
                throw new IOException("RocksDB checkpoint handle lists " + nameCount + " states");
            }
            List<String> names = new ArrayList<>(nameCount);
            for (int i = 0; i < nameCount; i++) {
                names.add(in.readUTF());
            }
            int fileCount = Serializers.readLength(in, "checkpoint files");
            List<SharedFile> shared = new ArrayList<>();
            List<InlineFile> inline = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < fileCount; i++) {
                int kind = in.readByte();
                String name = in.readUTF();
                if (!FILE_NAME.matcher(name).matches() || !seen.add(name)) {
                    throw new IOException("RocksDB checkpoint handle names the file '" + name + "'");
                }
                if (kind == SHARED) {
                    String reference = in.readUTF();
                    if (!listed.contains(reference)) {
                        throw new IOException("RocksDB checkpoint handle refers to " + reference
                                + ", which its checkpoint does not list");
                    }
                    shared.add(new SharedFile(name, reference));
                } else if (kind == INLINE) {
                    byte[] bytes = new byte[Serializers.readLength(in, "inline file " + name)];
                    in.readFully(bytes);
                    inline.add(new InlineFile(name, bytes));
                } else {
                    throw new IOException("RocksDB checkpoint handle has a file of kind " + kind);
                }
            }
            return new NativeHandle(keyVersion, first, end, List.copyOf(names), shared, inline);
        });
    }

    /** Writes every file of the checkpoint into {@code target}, a new directory. */
    void download(SharedStateStore shared, Path target) throws IOException {
        Files.createDirectories(target);
        for (SharedFile file : sharedFiles) {
            shared.download(file.reference(), target.resolve(file.name()));
        }
        for (InlineFile file : inlineFiles) {
            Files.write(target.resolve(file.name()), file.bytes());
        }
    }
}
