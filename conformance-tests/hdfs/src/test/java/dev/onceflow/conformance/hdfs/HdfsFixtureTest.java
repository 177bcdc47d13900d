package dev.onceflow.conformance.hdfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.record.Event;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The oracle's reader of committed files: whole, canonical lines or the case fails. */
class HdfsFixtureTest {

    private static final HdfsSinkConformanceTest.SinkFixture FIXTURE = new HdfsSinkConformanceTest.SinkFixture();

    @BeforeAll
    static void start() throws IOException {
        FIXTURE.start();
    }

    @AfterAll
    static void stop() {
        FIXTURE.close();
    }

    @Test
    void readsTheEventsOfWholeLinesAndSkipsHiddenAndEmptyFiles() throws IOException {
        String directory = directory("good");
        write(directory + "/part-0-1-0-a", "1,key-1,1,payload1\n2,key-2,1,payload2\n");
        write(directory + "/part-0-2-0-a", "");
        write(directory + "/.part-0-3-0-a.inprogress", "3,key-0,1,payload3\n");

        assertThat(FIXTURE.readVisible(directory)).containsExactly(new Event("1", "key-1", "payload1", 1),
                new Event("2", "key-2", "payload2", 1));
    }

    @Test
    void aFileCutInsideALineFailsTheRead() throws IOException {
        String directory = directory("cut");
        write(directory + "/part-0-1-0-a", "1,key-1,1,payload1\n2,key-2,1,pay");

        assertThatThrownBy(() -> FIXTURE.readVisible(directory)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("committed file hdfs://")
                .hasMessageEndingWith("/cut/part-0-1-0-a ends inside a line");
    }

    @Test
    void aLineNotAsItsRecordFormatsFailsTheRead() throws IOException {
        String directory = directory("odd");
        write(directory + "/part-0-1-0-a", "1,key-1,1,payload1\n2,key-2,01,payload2\n");

        assertThatThrownBy(() -> FIXTURE.readVisible(directory)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("line 2 of committed file ")
                .hasMessageEndingWith(" is not as its record formats: 2,key-2,01,payload2");
    }

    @Test
    void aBlankLineFailsTheReadWhereverItIs() throws IOException {
        String middle = directory("blank-middle");
        write(middle + "/part-0-1-0-a", "1,key-1,1,payload1\n\n2,key-2,1,payload2\n");
        String end = directory("blank-end");
        write(end + "/part-0-1-0-a", "1,key-1,1,payload1\n\n");

        assertThatThrownBy(() -> FIXTURE.readVisible(middle)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("line 2 of committed file ").hasMessageContaining("expected 4 fields");
        assertThatThrownBy(() -> FIXTURE.readVisible(end)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("line 2 of committed file ").hasMessageContaining("expected 4 fields");
    }

    @Test
    void bytesThatAreNotUtf8FailTheRead() throws IOException {
        String directory = directory("latin1");
        try (FSDataOutputStream out = FIXTURE.fs().create(new Path(directory + "/part-0-1-0-a"))) {
            out.write("1,key-1,1,caf".getBytes(StandardCharsets.US_ASCII));
            out.write(0xE9); // 'é' in ISO-8859-1, a lone continuation-less lead byte in UTF-8
            out.write('\n');
        }

        assertThatThrownBy(() -> FIXTURE.readVisible(directory)).isInstanceOf(IOException.class)
                .hasMessageEndingWith("/latin1/part-0-1-0-a is not UTF-8: java.nio.charset.MalformedInputException: "
                        + "Input length = 1");
    }

    private static String directory(String name) {
        return FIXTURE.cluster().uri() + "/" + name;
    }

    private static void write(String file, String text) throws IOException {
        try (FSDataOutputStream out = FIXTURE.fs().create(new Path(file))) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }
}
