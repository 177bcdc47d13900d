package dev.onceflow.testing.hdfs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link HdfsTestCluster} per test class, started before its first test and stopped (its
 * files deleted) after its last one.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final HdfsExtension HDFS = new HdfsExtension(1);
 * ...
 * String out = HDFS.cluster().uri() + "/out";
 * }</pre>
 */
public final class HdfsExtension implements BeforeAllCallback, AfterAllCallback {

    private final int dataNodes;
    private Path baseDirectory;
    private HdfsTestCluster cluster;

    public HdfsExtension(int dataNodes) {
        this.dataNodes = dataNodes;
    }

    /** The running cluster; only between the class's first and last test. */
    public HdfsTestCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException("the HDFS cluster runs only while its test class runs");
        }
        return cluster;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        baseDirectory = Files.createTempDirectory("onceflow-hdfs-");
        cluster = HdfsTestCluster.start(baseDirectory, dataNodes);
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        try {
            if (cluster != null) {
                cluster.close();
            }
        } finally {
            cluster = null;
            deleteRecursively(baseDirectory);
        }
    }

    /** {@link HdfsTestCluster#close()} deletes the cluster's files; this removes what is left, if anything. */
    private static void deleteRecursively(Path directory) throws IOException {
        if (directory == null || !Files.exists(directory)) {
            return;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> {
                try {
                    Files.delete(file);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
