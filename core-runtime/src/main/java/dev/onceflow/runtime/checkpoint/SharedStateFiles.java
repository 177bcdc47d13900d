package dev.onceflow.runtime.checkpoint;

import dev.onceflow.runtime.state.SharedStateStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code shared/} directory of a job's checkpoints: one directory per uploaded file,
 * {@code shared/<checkpoint id>-<uuid>/<file name>}, so that the file system's directory listing
 * is all that pruning needs, and the id says which checkpoint uploaded it. Files are written in
 * the checksummed envelope of every checkpoint file and verified when read.
 */
final class SharedStateFiles implements SharedStateStore {

    static final String DIRECTORY = "shared";
    private static final Pattern ENTRY = Pattern.compile("(\\d+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final Pattern REFERENCE = Pattern.compile(DIRECTORY + "/(" + ENTRY.pattern() + ")/([A-Za-z0-9._-]{1,200})");

    private final CheckpointFileSystem fs;
    private final CheckpointLocation jobDirectory;

    SharedStateFiles(CheckpointFileSystem fs, CheckpointLocation jobDirectory) {
        this.fs = fs;
        this.jobDirectory = jobDirectory;
    }

    @Override
    public String upload(long checkpointId, Path localFile) throws IOException {
        String entry = checkpointId + "-" + UUID.randomUUID();
        String name = localFile.getFileName().toString();
        String reference = DIRECTORY + "/" + entry + "/" + name;
        check(reference);
        CheckpointLocation directory = jobDirectory.resolve(DIRECTORY).resolve(entry);
        fs.mkdirs(directory);
        // Streamed from the hard-linked file: no SST file is held in memory (they are files RocksDB
        // no longer changes, so the size read first is the size copied).
        ChecksummedFiles.writeAtomically(fs, directory.resolve(name), Files.size(localFile),
                out -> Files.copy(localFile, out));
        return reference;
    }

    @Override
    public void download(String reference, Path localFile) throws IOException {
        CheckpointLocation file = locate(reference);
        // Streamed: an SST file is tens of megabytes, and keyed state may be larger than the heap.
        try (java.io.OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(localFile), 1 << 16)) {
            ChecksummedFiles.copyPayload(fs, file, out);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(localFile); // never a partial or corrupt copy
            throw e;
        }
    }

    CheckpointLocation locate(String reference) throws IOException {
        Matcher m = check(reference);
        return jobDirectory.resolve(DIRECTORY).resolve(m.group(1)).resolve(m.group(3));
    }

    /** The entry directory ({@code <id>-<uuid>}) of a valid reference. */
    static String entryOf(String reference) throws IOException {
        return check(reference).group(1);
    }

    /** The id of the checkpoint that uploaded an entry directory, or -1 if the name is not an entry's. */
    static long uploaderOf(String entryName) {
        Matcher m = ENTRY.matcher(entryName);
        return m.matches() ? Long.parseLong(m.group(1)) : -1;
    }

    /** References are input (read from state files): anything but the expected shape is refused. */
    static Matcher check(String reference) throws IOException {
        Matcher m = REFERENCE.matcher(reference);
        if (!m.matches()) {
            throw new CorruptCheckpointException("'" + reference + "' is not a reference to a shared state file");
        }
        return m;
    }
}
