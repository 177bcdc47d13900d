package dev.onceflow.checkpoint.hadoop;

import dev.onceflow.runtime.checkpoint.CheckpointFileSystem;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import java.io.IOException;
import java.net.URI;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys;

/**
 * Serves checkpoint locations on HDFS: {@code hdfs}, and {@code viewfs}, {@code webhdfs},
 * {@code swebhdfs}, whose renames the name node performs. Not object stores ({@code s3a},
 * {@code abfs}, {@code gs}): their rename is a copy, which breaks CFS-1. The Hadoop configuration is
 * {@code new Configuration()}: {@code core-site.xml} and {@code hdfs-site.xml} from the class
 * path, as for the filesystem sink, so a plain {@code hdfs://host:port/dir} needs no files.
 * Found by the runtime through {@link java.util.ServiceLoader}.
 */
public final class HadoopCheckpointStorageProvider implements CheckpointFileSystem.Provider {

    /** Schemes whose rename is the name node's, so atomic (CFS-1). */
    private static final Set<String> ATOMIC_RENAME = Set.of("hdfs", "viewfs", "webhdfs", "swebhdfs");
    private static final Configuration CONF = closingFilesPromptly(new Configuration());
    /** One per scheme and authority: a {@code FileContext} holds a client of its file system. */
    private static final Map<String, HadoopCheckpointFileSystem> OPEN = new ConcurrentHashMap<>();

    /**
     * Closing an HDFS file returns once the name node has heard that its last block is complete,
     * usually milliseconds after the client first asks; by default the client then waits 400 ms
     * before asking again, for every state file of every checkpoint. Unless the configuration
     * files set them, ask again after 20 ms, doubling, 10 times (about as long in all as Hadoop's
     * 5 times from 400 ms).
     */
    static Configuration closingFilesPromptly(Configuration conf) {
        for (Map.Entry<String, String> setting : Map.of(
                HdfsClientConfigKeys.BlockWrite.LOCATEFOLLOWINGBLOCK_INITIAL_DELAY_MS_KEY, "20",
                HdfsClientConfigKeys.BlockWrite.LOCATEFOLLOWINGBLOCK_RETRIES_KEY, "10").entrySet()) {
            String[] sources = conf.getPropertySources(setting.getKey());
            if (sources == null || Arrays.stream(sources).allMatch(source -> source.endsWith("-default.xml"))) {
                conf.set(setting.getKey(), setting.getValue());
            }
        }
        return conf;
    }

    @Override
    public boolean supports(CheckpointLocation location) {
        return ATOMIC_RENAME.contains(location.uri().getScheme());
    }

    @Override
    public CheckpointFileSystem open(CheckpointLocation location) throws IOException {
        URI uri = location.uri();
        URI root = URI.create(uri.getScheme() + "://" + (uri.getAuthority() == null ? "" : uri.getAuthority()) + "/");
        HadoopCheckpointFileSystem open = OPEN.get(root.toString());
        if (open == null) {
            // Two threads may both create one; the loser's is dropped unused.
            HadoopCheckpointFileSystem created = new HadoopCheckpointFileSystem(FileContext.getFileContext(root, CONF));
            open = OPEN.putIfAbsent(root.toString(), created);
            if (open == null) {
                open = created;
            }
        }
        return open;
    }
}
