package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.fs.FSDataOutputStream;

/**
 * The open stream of one in-progress part file, counting the bytes it was given, which become the
 * handle's pre-committed length.
 */
final class PartFileStream implements AutoCloseable {

    private static final int BUFFER_BYTES = 64 * 1024;

    private final FSDataOutputStream out;
    private final BufferedOutputStream buffered;
    private long length;

    PartFileStream(FSDataOutputStream out) {
        this.out = out;
        // Batches small writes; a DFS output stream does per-call work that line-sized writes would multiply.
        this.buffered = new BufferedOutputStream(out, BUFFER_BYTES);
    }

    /** Appends the event as one line. */
    void write(Event event) throws IOException {
        byte[] line = (EventFormat.toLine(event) + "\n").getBytes(StandardCharsets.UTF_8);
        buffered.write(line);
        length += line.length;
    }

    /**
     * Makes everything written durable and closes the file (2PC-2).
     *
     * @return the number of bytes in the file
     */
    long syncAndClose() throws IOException {
        buffered.flush();
        // hsync, not hflush: the data must survive a machine failure, not just this process's.
        out.hsync();
        out.close();
        return length;
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
