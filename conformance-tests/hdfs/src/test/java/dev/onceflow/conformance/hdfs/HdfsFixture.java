package dev.onceflow.conformance.hdfs;

import dev.onceflow.conformance.ExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.testing.hdfs.HdfsTestCluster;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
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

    /**
     * The events in the visible files of {@code directory}, as a committed reader sees them. Each
     * file must be UTF-8 and hold whole lines, each exactly as its event formats
     * ({@code EventFormat}; so no blank ones): a file cut inside a line, or a line not as the sink
     * writes it, fails the case here, which record ids and counts alone would not show. (A field
     * holding a line end, which {@code EventFormat} can quote, would fail too; datagen's do not.)
     */
    List<Event> readVisible(String directory) throws IOException {
        List<Event> events = new ArrayList<>();
        for (FileStatus file : files(directory)) {
            if (!hidden(file)) {
                byte[] bytes;
                try (FSDataInputStream in = fs().open(file.getPath())) {
                    bytes = in.readAllBytes();
                }
                if (bytes.length != file.getLen()) {
                    throw new IOException("committed file " + file.getPath() + " is " + file.getLen()
                            + " bytes long but " + bytes.length + " were read");
                }
                if (bytes.length == 0) {
                    continue;
                }
                if (bytes[bytes.length - 1] != '\n') {
                    throw new IOException("committed file " + file.getPath() + " ends inside a line");
                }
                String text;
                try {
                    text = StandardCharsets.UTF_8.newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(bytes)).toString();
                } catch (CharacterCodingException e) {
                    throw new IOException("committed file " + file.getPath() + " is not UTF-8: " + e, e);
                }
                // The part after the last line end is empty (checked above); every other one is a line.
                String[] lines = text.split("\n", -1);
                for (int i = 0; i < lines.length - 1; i++) {
                    String line = lines[i];
                    Event event;
                    try {
                        event = EventFormat.parse(line);
                    } catch (IllegalArgumentException e) {
                        throw new IOException("line " + (i + 1) + " of committed file " + file.getPath() + ": "
                                + e.getMessage(), e);
                    }
                    if (!EventFormat.toLine(event).equals(line)) {
                        throw new IOException("line " + (i + 1) + " of committed file " + file.getPath()
                                + " is not as its record formats: " + line);
                    }
                    events.add(event);
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
