package dev.onceflow.format.parquet;

import dev.onceflow.spi.format.RowFileWriter;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.schema.MessageType;

/**
 * One Parquet file over a stream, through Parquet's own {@link ParquetWriter}: rows are buffered
 * into row groups in memory, and {@link #finish} writes the last row group and the footer. The
 * {@link ParquetWriter} is made at the first row (or at {@code finish}), so making this writer
 * only checks the schema and writes nothing (FMT-5).
 */
final class ParquetRowFileWriter implements RowFileWriter {

    private final MessageType messageType;
    private final Schema schema;
    private final ParquetCompression compression;
    private final long rowGroupSize;
    private final OutputStream out;
    private ParquetWriter<Row> writer;
    private boolean finished;

    ParquetRowFileWriter(MessageType messageType, Schema schema, ParquetCompression compression, long rowGroupSize,
            OutputStream out) {
        this.messageType = messageType;
        this.schema = schema;
        this.compression = compression;
        this.rowGroupSize = rowGroupSize;
        this.out = out;
    }

    @Override
    public void write(Row row) throws IOException {
        if (finished) {
            throw new IllegalStateException("the Parquet file is finished");
        }
        try {
            open().write(row);
        } catch (RowWriteSupport.ValueException e) {
            throw new IOException("format 'parquet': " + e.getMessage(), e);
        }
    }

    @Override
    public void finish() throws IOException {
        if (finished) {
            throw new IllegalStateException("the Parquet file is already finished");
        }
        finished = true;
        // ParquetWriter.close writes the footer and closes our stream, which only flushes the caller's.
        open().close();
    }

    private ParquetWriter<Row> open() throws IOException {
        if (writer == null) {
            writer = new Builder(new StreamOutputFile(out), new RowWriteSupport(messageType, schema))
                    // Parquet's own configuration: no Hadoop Configuration (and its XML files) per file.
                    .withConf(new PlainParquetConfiguration())
                    .withWriteMode(ParquetFileWriter.Mode.CREATE)
                    .withCompressionCodec(compression.codec())
                    .withRowGroupSize(rowGroupSize)
                    .build();
        }
        return writer;
    }

    private static final class Builder extends ParquetWriter.Builder<Row, Builder> {

        private final RowWriteSupport writeSupport;

        Builder(OutputFile file, RowWriteSupport writeSupport) {
            super(file);
            this.writeSupport = writeSupport;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** Abstract in Parquet, but not called: the writer is built with a {@link ParquetConfiguration}. */
        @Override
        @SuppressWarnings("deprecation")
        protected WriteSupport<Row> getWriteSupport(Configuration conf) {
            return writeSupport;
        }

        @Override
        protected WriteSupport<Row> getWriteSupport(ParquetConfiguration conf) {
            return writeSupport;
        }
    }

    /**
     * The caller's stream as the one file Parquet writes: positions count from the stream's start
     * (a new file's), there are no HDFS blocks to align row groups to, and closing only flushes,
     * so the caller can make the bytes durable before it closes the file itself.
     */
    private static final class StreamOutputFile implements OutputFile {

        private final OutputStream out;
        private boolean created;

        StreamOutputFile(OutputStream out) {
            this.out = out;
        }

        @Override
        public PositionOutputStream create(long blockSizeHint) {
            if (created) {
                throw new IllegalStateException("a Parquet file over a stream can be created once");
            }
            created = true;
            return new PositionOutputStream() {
                private long position;

                @Override
                public long getPos() {
                    return position;
                }

                @Override
                public void write(int b) throws IOException {
                    out.write(b);
                    position++;
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                    position += len;
                }

                @Override
                public void flush() throws IOException {
                    out.flush();
                }

                @Override
                public void close() throws IOException {
                    out.flush();
                }
            };
        }

        @Override
        public PositionOutputStream createOrOverwrite(long blockSizeHint) {
            return create(blockSizeHint);
        }

        @Override
        public boolean supportsBlockSize() {
            return false;
        }

        @Override
        public long defaultBlockSize() {
            return 0;
        }
    }
}
