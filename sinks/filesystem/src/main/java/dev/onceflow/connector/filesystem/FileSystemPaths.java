package dev.onceflow.connector.filesystem;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys;

/**
 * Opens the Hadoop {@link FileSystem} of a path for one writer.
 *
 * <p>Local paths use the raw local file system: the default checksummed one supports neither
 * {@code truncate} (which commit needs to cut a part file back to its pre-committed length) nor
 * files without {@code .crc} side files. It is Hadoop's shared instance and must not be closed.
 *
 * <p>Other file systems get a client of their own ({@link FileSystem#newInstance}), which the
 * writer closes: Hadoop's cache would hand out a client made with another configuration, and a
 * writer's own client holds its leases under its own name.
 */
final class FileSystemPaths {

    /** What HDFS waits before asking again whether a closed file is complete; Hadoop's default is 400 ms. */
    static final String CLOSE_POLL_MILLIS = "20";
    /** How often it asks again, doubling the wait each time: about 20 s in all (Hadoop: 5 times, 12.4 s). */
    static final String CLOSE_POLLS = "10";

    private FileSystemPaths() {
    }

    /** Whether {@code path} is served by the shared raw local file system (no scheme, or {@code file:}). */
    static boolean isLocal(Path path) {
        String scheme = path.toUri().getScheme();
        return scheme == null || scheme.equals("file");
    }

    /**
     * What keeps a writer from using the local directory {@code path}, or null if nothing does:
     * it is a file, or cannot be written, or cannot be created because its nearest existing
     * parent is a file or cannot be written. Reads only; creates nothing. Null for a path on
     * another file system (HDFS): it is not reachable from here, and its permissions are the
     * name node's to check, for the user the writers connect as.
     */
    static String localDirectoryProblem(String path) {
        java.nio.file.Path directory;
        try {
            Path hadoopPath = new Path(path);
            if (!isLocal(hadoopPath)) {
                return null;
            }
            // As the writer resolves it: relative to the working directory.
            directory = java.nio.file.Path.of(hadoopPath.toUri().getPath()).toAbsolutePath().normalize();
        } catch (IllegalArgumentException e) {
            return "is not a path Hadoop can use";
        }
        if (Files.exists(directory)) {
            if (!Files.isDirectory(directory)) {
                return "is an existing file, not a directory";
            }
            return Files.isWritable(directory) ? null : "is a directory this user may not write to";
        }
        java.nio.file.Path parent = directory.getParent();
        while (parent != null && !Files.exists(parent)) {
            parent = parent.getParent();
        }
        if (parent == null) {
            return null;
        }
        if (!Files.isDirectory(parent)) {
            return "cannot be created: '" + parent + "' is a file";
        }
        return Files.isWritable(parent) ? null : "cannot be created: this user may not write to '" + parent + "'";
    }

    /**
     * The file system serving {@code path}: the shared raw local one for local paths, else a new
     * client the caller must close.
     */
    static FileSystem open(Path path, Configuration conf) throws IOException {
        if (isLocal(path)) {
            return FileSystem.getLocal(conf).getRawFileSystem();
        }
        return FileSystem.newInstance(path.toUri(), FileSystemSink.clientConfiguration(conf));
    }

    /**
     * Closing an HDFS file returns once the name node has heard from the data nodes that its last
     * block is complete, which is usually a few milliseconds after the client asks first. By
     * default the client then waits 400 ms before asking again: at every checkpoint, for every
     * part file, on the task thread. Unless the configuration files set them, the client here
     * asks after 20 ms, doubling, and as long in total as Hadoop's default would.
     */
    static void closeFilesPromptly(Configuration conf) {
        setUnlessConfigured(conf, HdfsClientConfigKeys.BlockWrite.LOCATEFOLLOWINGBLOCK_INITIAL_DELAY_MS_KEY,
                CLOSE_POLL_MILLIS);
        setUnlessConfigured(conf, HdfsClientConfigKeys.BlockWrite.LOCATEFOLLOWINGBLOCK_RETRIES_KEY, CLOSE_POLLS);
    }

    private static void setUnlessConfigured(Configuration conf, String key, String value) {
        String[] sources = conf.getPropertySources(key);
        if (sources == null || Arrays.stream(sources).allMatch(source -> source.endsWith("-default.xml"))) {
            conf.set(key, value);
        }
    }
}
