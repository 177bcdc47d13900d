package dev.onceflow.spi.format;

import dev.onceflow.spi.row.Row;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A line format's file: each row's record followed by {@code \n}, the default of
 * {@link FormatFactory#createFileWriter}. A record holding a line break its format does not mark
 * ({@link LineBreaks#ANYWHERE}) is refused: it would read back as two records.
 */
final class LineFileWriter implements RowFileWriter {

    private final String format;
    private final RowEncoder encoder;
    private final boolean checkLineBreaks;
    private final OutputStream out;

    LineFileWriter(String format, RowEncoder encoder, LineBreaks lineBreaks, OutputStream out) {
        this.format = format;
        this.encoder = encoder;
        this.checkLineBreaks = lineBreaks == LineBreaks.ANYWHERE;
        this.out = out;
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
        out.write(record);
        out.write('\n');
    }

    @Override
    public void finish() throws IOException {
        out.flush();
    }
}
