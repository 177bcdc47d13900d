package dev.onceflow.testing.hdfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HdfsTestClusterTest {

    @TempDir
    Path dir;

    @Test
    void keepsFilesAcrossNodeRestartsAndListensOnLoopbackOnly() throws IOException {
        try (HdfsTestCluster hdfs = HdfsTestCluster.start(dir, 1)) {
            assertThat(hdfs.uri().getScheme()).isEqualTo("hdfs");
            assertThat(hdfs.uri().getHost()).isEqualTo("127.0.0.1");
            org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(hdfs.uri() + "/a/file");
            FileSystem fs = hdfs.fileSystem();
            try (FSDataOutputStream out = fs.create(file)) {
                out.write("one\n".getBytes(StandardCharsets.UTF_8));
            }

            hdfs.restartNameNode();
            hdfs.restartDataNode(0);

            try (FileSystem client = hdfs.newClient()) {
                assertThat(new String(client.open(file).readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("one\n");
            }
            assertThat(dir.resolve("data")).isDirectory();
        }
    }
}
