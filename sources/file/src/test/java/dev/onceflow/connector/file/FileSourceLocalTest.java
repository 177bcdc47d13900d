package dev.onceflow.connector.file;

import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** The file source on local disk. */
class FileSourceLocalTest extends FileSourceContract {

    @TempDir
    Path temp;

    @BeforeEach
    void localDirectory() throws Exception {
        fs = FileSystem.getLocal(new Configuration()).getRawFileSystem();
        dir = fs.makeQualified(new org.apache.hadoop.fs.Path(temp.toUri()));
    }
}
