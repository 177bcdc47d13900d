package dev.onceflow.connector.file;

import dev.onceflow.testing.hdfs.HdfsTestCluster;
import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/** The file source on a real HDFS: a name node and a data node shared by the tests of this class. */
class FileSourceHdfsTest extends FileSourceContract {

    @TempDir
    static java.nio.file.Path base;

    private static HdfsTestCluster hdfs;

    @BeforeAll
    static void startHdfs() throws IOException {
        hdfs = HdfsTestCluster.start(base, 1);
    }

    @AfterAll
    static void stopHdfs() {
        if (hdfs != null) {
            hdfs.close();
        }
    }

    @BeforeEach
    void directoryPerTest(TestInfo test) throws IOException {
        fs = hdfs.fileSystem();
        dir = new Path(hdfs.uri() + "/" + test.getTestMethod().orElseThrow().getName());
        fs.mkdirs(dir);
    }
}
