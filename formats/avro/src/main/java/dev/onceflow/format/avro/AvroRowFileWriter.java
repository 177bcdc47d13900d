package dev.onceflow.format.avro;

import dev.onceflow.spi.format.RowFileWriter;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumWriter;

/**
 * One Avro object container file over a stream, through Avro's own {@link DataFileWriter}: the
 * header (schema, codec, sync marker), then blocks of rows as the writer fills them. The
 * {@link DataFileWriter} is made at the first row (or at {@code finish}), so making this writer
 * writes nothing (FMT-5). A container file can be appended to but not cut back at a row, so the
 * filesystem sink finishes one per checkpoint, as it does Parquet's.
 */
final class AvroRowFileWriter implements RowFileWriter {

    private final Schema schema;
    private final org.apache.avro.Schema avro;
    private final AvroCodec codec;
    private final OutputStream out;
    private DataFileWriter<Object> writer;
    private boolean finished;

    AvroRowFileWriter(Schema schema, org.apache.avro.Schema avro, AvroCodec codec, OutputStream out) {
        this.schema = schema;
        this.avro = avro;
        this.codec = codec;
        this.out = out;
    }

    @Override
    public void write(Row row) throws IOException {
        if (finished) {
            throw new IllegalStateException("the Avro file is finished");
        }
        Object record;
        try {
            record = AvroRowEncoder.record(schema, avro, row, "");
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
        try {
            open().append(record);
        } catch (DataFileWriter.AppendWriteException e) {
            throw new IOException("format 'avro': " + e.getMessage(), e);
        }
    }

    @Override
    public void finish() throws IOException {
        if (finished) {
            throw new IllegalStateException("the Avro file is already finished");
        }
        finished = true;
        // DataFileWriter.close writes the last block and closes our stream, which only flushes the caller's.
        open().close();
    }

    private DataFileWriter<Object> open() throws IOException {
        if (writer == null) {
            writer = new DataFileWriter<>(new GenericDatumWriter<>(avro, new RawGenericData()))
                    .setCodec(codec.factory())
                    .create(avro, new FilterOutputStream(out) {
                        @Override
                        public void write(byte[] b, int off, int len) throws IOException {
                            out.write(b, off, len);
                        }

                        @Override
                        public void close() throws IOException {
                            out.flush();
                        }
                    });
        }
        return writer;
    }
}
