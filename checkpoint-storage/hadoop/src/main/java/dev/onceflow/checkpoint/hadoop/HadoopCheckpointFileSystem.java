package dev.onceflow.checkpoint.hadoop;

import dev.onceflow.runtime.checkpoint.CheckpointFileSystem;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Checkpoints on one Hadoop file system (one scheme and authority, such as one HDFS name
 * service), through {@link FileContext} rather than {@code FileSystem}: only
 * {@link FileContext#rename(Path, Path, Options.Rename...)} with {@code OVERWRITE} replaces an
 * existing file atomically, where {@code FileSystem.rename} onto an existing file returns false on
 * HDFS.
 *
 * <p>CFS-1 on HDFS: the temporary file is {@code hsync}ed (data on the data nodes' disks, with
 * {@code SYNC_BLOCK} also for blocks closed earlier) and closed before the rename, and the name
 * node logs the rename durably before it returns, so a reader sees the old file or the whole new
 * one. It relies on the file system's rename being atomic: true for HDFS, not for object stores
 * such as S3.
 *
 * <p>CFS-7 on HDFS: the temporary file is created with mode 0600 (less the umask, which only
 * clears bits) and the rename keeps it. That keeps the file from other HDFS users only as far as
 * HDFS knows who they are: with Kerberos; with simple authentication anyone can claim the owner's
 * name, and the HDFS superuser reads everything.
 */
final class HadoopCheckpointFileSystem implements CheckpointFileSystem {

    private static final FsPermission OWNER_ONLY = new FsPermission((short) 0600);

    private final FileContext files;

    HadoopCheckpointFileSystem(FileContext files) {
        this.files = files;
    }

    @Override
    public void writeAtomically(CheckpointLocation target, byte[] bytes) throws IOException {
        writeAtomically(target, out -> out.write(bytes));
    }

    @Override
    public void writeAtomically(CheckpointLocation target, Content content) throws IOException {
        write(target, content);
    }

    @Override
    public void writeAtomicallyOwnerOnly(CheckpointLocation target, byte[] bytes) throws IOException {
        // Given to create, never set afterwards: the file is not readable by others at any moment.
        write(target, out -> out.write(bytes), Options.CreateOpts.perms(OWNER_ONLY));
    }

    private void write(CheckpointLocation target, Content content, Options.CreateOpts... options) throws IOException {
        Path file = pathOf(target);
        // A unique name: a writer that died mid-write keeps its file's lease on the name node for a
        // minute, and creating over that file would fail until then.
        Path temp = new Path(file.getParent(), "." + file.getName() + "." + UUID.randomUUID() + ".tmp");
        try {
            Options.CreateOpts[] create = Arrays.copyOf(options, options.length + 1);
            create[options.length] = Options.CreateOpts.createParent();
            try (FSDataOutputStream out = files.create(temp,
                    EnumSet.of(CreateFlag.CREATE, CreateFlag.OVERWRITE, CreateFlag.SYNC_BLOCK), create)) {
                java.io.BufferedOutputStream buffered = new java.io.BufferedOutputStream(out, 1 << 16);
                content.writeTo(buffered);
                buffered.flush();
                out.hsync();
            }
            files.rename(temp, file, Options.Rename.OVERWRITE);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(temp);
            throw e;
        }
    }

    private void deleteQuietly(Path temp) {
        try {
            files.delete(temp, false);
        } catch (IOException ignored) {
            // left for prune, which deletes the checkpoint directory it is in
        }
    }

    @Override
    public byte[] read(CheckpointLocation file) throws IOException {
        try (FSDataInputStream in = files.open(pathOf(file))) {
            return in.readAllBytes();
        } catch (FileNotFoundException e) {
            throw new NoSuchFileException(file.toString());
        }
    }

    @Override
    public java.io.InputStream open(CheckpointLocation file) throws IOException {
        try {
            return files.open(pathOf(file));
        } catch (FileNotFoundException e) {
            throw new NoSuchFileException(file.toString());
        }
    }

    @Override
    public boolean exists(CheckpointLocation location) throws IOException {
        return files.util().exists(pathOf(location));
    }

    @Override
    public List<CheckpointLocation> listDirectories(CheckpointLocation directory) throws IOException {
        List<CheckpointLocation> result = new ArrayList<>();
        FileStatus[] entries;
        try {
            entries = files.util().listStatus(pathOf(directory));
        } catch (FileNotFoundException e) {
            return result;
        }
        for (FileStatus entry : entries) {
            if (entry.isDirectory()) {
                // By name, so the result keeps the authority as the user wrote it, not as Hadoop qualifies it.
                result.add(directory.resolve(entry.getPath().getName()));
            }
        }
        return result;
    }

    @Override
    public void mkdirs(CheckpointLocation directory) throws IOException {
        try {
            files.mkdir(pathOf(directory), FsPermission.getDirDefault(), true);
        } catch (FileAlreadyExistsException e) {
            if (!files.getFileStatus(pathOf(directory)).isDirectory()) {
                throw e;
            }
        }
    }

    @Override
    public void deleteRecursively(CheckpointLocation location) throws IOException {
        files.delete(pathOf(location), true);
    }

    private static Path pathOf(CheckpointLocation location) {
        return new Path(location.uri());
    }
}
