package dev.onceflow.connector.file;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Finds the Hadoop {@link FileSystem} of a path.
 *
 * <p>Local paths use the raw local file system: the default checksummed one writes and expects
 * {@code .crc} side files, which the files' producers may not write. Instances come from Hadoop's
 * file system cache and are shared within the JVM, so callers must not close them.
 */
final class FileSystemPaths {

    private FileSystemPaths() {
    }

    /** The file system serving {@code path}: raw local for paths without scheme or {@code file:}. */
    static FileSystem fileSystemOf(Path path, Configuration conf) throws IOException {
        String scheme = path.toUri().getScheme();
        if (scheme == null || scheme.equals("file")) {
            return FileSystem.getLocal(conf).getRawFileSystem();
        }
        return FileSystem.get(path.toUri(), conf);
    }
}
