package dev.onceflow.connector.file;

import dev.onceflow.testing.hdfs.HdfsExtension;
import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The file source on a real HDFS: a name node and a data node shared by the tests of this class. */
class FileSourceHdfsTest extends FileSourceContract {

    @RegisterExtension
    static final HdfsExtension HDFS = new HdfsExtension(1);

    @BeforeEach
    void directoryPerTest(TestInfo test) throws IOException {
        fs = HDFS.cluster().fileSystem();
        dir = new Path(HDFS.cluster().uri() + "/" + test.getTestMethod().orElseThrow().getName());
        fs.mkdirs(dir);
    }
}
