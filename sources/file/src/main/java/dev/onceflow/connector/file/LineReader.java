package dev.onceflow.connector.file;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Splits a byte stream into {@code \n}-terminated UTF-8 lines and knows the byte offset of each,
 * which is what makes a file split replayable: the offset after a line is the split's position.
 *
 * <p>Scanning is done on bytes, which is safe because UTF-8 never uses the bytes of {@code \n},
 * {@code ,} or {@code "} inside a multi-byte character. With {@code quotedFields}, a {@code \n}
 * inside a double-quoted field (RFC 4180, as {@link dev.onceflow.spi.record.EventFormat} writes
 * it) belongs to the line, so events whose payload holds a line break survive a round trip.
 *
 * <p>Not thread-safe; one instance per open stream.
 */
final class LineReader {

    /**
     * One line's bytes without its terminator, and where it starts and where the next one starts.
     * Bytes, not text: a format decides how they are text (strictly, where it reads UTF-8), and the
     * raw format's bytes pass unchanged.
     */
    record Line(byte[] bytes, long offset, long nextOffset) {

        /** The line as UTF-8 text, malformed bytes replaced, as the event lines were always read. */
        String text() {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    private final InputStream in;
    private final boolean quotedFields;
    private final byte[] buffer = new byte[64 * 1024];
    private int position;
    private int limit;
    private boolean endOfStream;

    private byte[] line = new byte[256];
    private int lineLength;
    private long lineOffset;
    private boolean inQuotes;
    private boolean atFieldStart = true;
    private boolean quoteJustClosed;

    /**
     * @param in the stream, positioned at {@code startOffset}
     * @param startOffset byte offset of the stream's first byte in the file
     */
    LineReader(InputStream in, long startOffset, boolean quotedFields) {
        this.in = in;
        this.lineOffset = startOffset;
        this.quotedFields = quotedFields;
    }

    /**
     * The next complete line, or {@code null} when the stream ended without one; then
     * {@link #remainder()} holds any bytes after the last line break.
     */
    Line next() throws IOException {
        while (true) {
            if (position == limit && !fill()) {
                return null;
            }
            byte b = buffer[position++];
            if (b == '\n' && !inQuotes) {
                return completeLine(lineLength + 1L);
            }
            append(b);
            if (quotedFields) {
                trackQuotes(b);
            }
        }
    }

    /**
     * After {@link #next()} returned {@code null}: the unterminated last line, or {@code null} if
     * the stream ended right after a line break. A bounded source emits it; a continuous source
     * leaves it, because the writer may still be appending to it.
     */
    Line remainder() {
        if (!endOfStream || lineLength == 0) {
            return null;
        }
        return completeLine(lineLength);
    }

    /** Offset just after the last byte read from the stream: the file's length once the stream ended. */
    long bytesSeen() {
        return lineOffset + lineLength;
    }

    private boolean fill() throws IOException {
        if (endOfStream) {
            return false;
        }
        int read = in.read(buffer, 0, buffer.length);
        if (read < 0) {
            endOfStream = true;
            return false;
        }
        position = 0;
        limit = read;
        return true;
    }

    private Line completeLine(long consumed) {
        Line complete = new Line(Arrays.copyOf(line, lineLength), lineOffset, lineOffset + consumed);
        lineOffset += consumed;
        lineLength = 0;
        inQuotes = false;
        atFieldStart = true;
        quoteJustClosed = false;
        return complete;
    }

    private void append(byte b) {
        if (lineLength == line.length) {
            line = Arrays.copyOf(line, line.length * 2);
        }
        line[lineLength++] = b;
    }

    /** Mirrors how EventFormat splits fields: a quote opens a field only at its start; "" is an escaped quote. */
    private void trackQuotes(byte b) {
        if (inQuotes) {
            if (b == '"') {
                inQuotes = false;
                quoteJustClosed = true;
            }
            return;
        }
        if (b == '"' && (atFieldStart || quoteJustClosed)) {
            inQuotes = true;
        }
        atFieldStart = b == ',';
        quoteJustClosed = false;
    }
}
