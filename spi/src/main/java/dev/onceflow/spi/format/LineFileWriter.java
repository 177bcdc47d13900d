package dev.onceflow.spi.format;

import dev.onceflow.spi.row.Row;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A line format's file: its header line if the format has one (FMT-6), then each row's record,
 * each followed by {@code \n}; the default of
 * {@link FormatFactory#createFileWriter}. A record holding a line break its format does not mark
 * ({@link LineBreaks#ANYWHERE}) is refused: it would read back as two records.
 */
final class LineFileWriter implements RowFileWriter {

    private final String format;
    private final RowEncoder encoder;
    private final boolean checkLineBreaks;
    private final OutputStream out;
    /** The header line still to write, at the first row or finish; null once written or if there is none. */
    private byte[] header;

    LineFileWriter(String format, RowEncoder encoder, LineBreaks lineBreaks, byte[] header, OutputStream out) {
        this.format = format;
        this.encoder = encoder;
        this.checkLineBreaks = lineBreaks == LineBreaks.ANYWHERE;
        this.header = header.length == 0 ? null : header;
        this.out = out;
    }

    /** FMT-6: once, first; not when the writer is made, which must write nothing (FMT-5). */
    private void writeHeader() throws IOException {
        if (header != null) {
            out.write(header);
            out.write('\n');
            header = null;
        }
    }

    @Override
    public void write(Row row) throws IOException {
        byte[] record = encoder.encode(row);
        if (checkLineBreaks) {
            for (byte b : record) {
                if (b == '\n' || b == '\r') {
                    throw new IOException("a record in format '" + format + "' holds a line break, which a file of one"
                            + " record per line cannot hold; it would read back as two records");
                }
            }
        }
        writeHeader();
        out.write(record);
        out.write('\n');
    }

    @Override
    public void finish() throws IOException {
        writeHeader();
        out.flush();
    }
}
