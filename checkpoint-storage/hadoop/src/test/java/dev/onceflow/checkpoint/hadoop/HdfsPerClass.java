package dev.onceflow.checkpoint.hadoop;

import dev.onceflow.testing.hdfs.HdfsTestCluster;
import java.nio.file.Files;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real HDFS shared by the tests of a class (starting one takes seconds), with its data in a
 * temporary directory; register as a {@code static} field with {@code @RegisterExtension}.
 */
final class HdfsPerClass implements BeforeAllCallback, AfterAllCallback {

    private HdfsTestCluster cluster;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        cluster = HdfsTestCluster.start(Files.createTempDirectory("hdfs-"), 1);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        cluster.close(); // deletes the data directory too
    }

    HdfsTestCluster cluster() {
        return cluster;
    }
}
