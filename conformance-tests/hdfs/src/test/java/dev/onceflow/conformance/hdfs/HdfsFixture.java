package dev.onceflow.conformance.hdfs;

import dev.onceflow.conformance.ExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.testing.hdfs.HdfsTestCluster;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;

/**
 * A real HDFS for one test class: a name node and a data node in the test JVM, reached by the
 * jobs (child JVMs) through an {@code hdfs://127.0.0.1:<port>} URI. Each case gets a directory of
 * its own, named after the case, which holds its data and its job's checkpoints and savepoints.
 */
abstract class HdfsFixture implements ExternalSystem {

    private HdfsTestCluster cluster;

    @Override
    public void start() throws IOException {
        cluster = HdfsTestCluster.start(Files.createTempDirectory("onceflow-conformance-hdfs-"), 1);
    }

    @Override
    public void close() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Reports are {@code sink-filesystem-hdfs} and {@code source-file-hdfs}, beside the local-disk ones. */
    @Override
    public String variant() {
        return "hdfs";
    }

    HdfsTestCluster cluster() {
        return cluster;
    }

    /** {@code hdfs://127.0.0.1:<port>/<case>/<name>}. */
    String uri(TestDestination destination, String name) {
        return cluster.uri() + "/" + destination.name() + "/" + name;
    }

    /** Where the case's job keeps its checkpoints and savepoints: on this HDFS too. */
    CheckpointLocation checkpoints(TestDestination destination) {
        return CheckpointLocation.of(uri(destination, "checkpoints"));
    }

    /** The events in the visible files of {@code directory}, as a committed reader sees them. */
    List<Event> readVisible(String directory) throws IOException {
        List<Event> events = new ArrayList<>();
        for (FileStatus file : files(directory)) {
            if (!hidden(file)) {
                try (FSDataInputStream in = fs().open(file.getPath());
                        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = reader.readLine()) != null) {
                        events.add(EventFormat.parse(line));
                    }
                }
            }
        }
        return events;
    }

    /** Hidden files ({@code .} or {@code _}) in {@code directory}: in-progress data that must not linger. */
    List<String> hiddenFiles(String directory) throws IOException {
        return files(directory).stream().filter(HdfsFixture::hidden)
                .map(file -> "in-progress file " + file.getPath()).toList();
    }

    FileSystem fs() {
        return cluster.fileSystem();
    }

    private List<FileStatus> files(String directory) throws IOException {
        org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(directory);
        if (!fs().exists(dir)) {
            return List.of();
        }
        return Arrays.stream(fs().listStatus(dir)).filter(FileStatus::isFile).toList();
    }

    private static boolean hidden(FileStatus file) {
        String name = file.getPath().getName();
        return name.startsWith(".") || name.startsWith("_");
    }
}
