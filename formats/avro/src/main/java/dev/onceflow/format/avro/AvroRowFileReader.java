package dev.onceflow.format.avro;

import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RandomAccessInput;
import dev.onceflow.spi.format.RowFileReader;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.SeekableInput;
import org.apache.avro.generic.GenericDatumReader;

/**
 * Reads the rows of one Avro object container file with Avro's own {@link DataFileReader}, resolving
 * the file's schema to its fields the rows name ({@link AvroSchemas#projection}), and turns each
 * record into a row as the avro format's decoder does: the inverse of the type mapping of
 * docs/formats/avro.md. Rows come in the file's order, block after block (FMT-7).
 */
final class AvroRowFileReader implements RowFileReader {

    private final DataFileReader<Object> file;
    private final AvroRowDecoder decoder;
    private long rowIndex;

    private AvroRowFileReader(DataFileReader<Object> file, AvroRowDecoder decoder) {
        this.file = file;
        this.decoder = decoder;
    }

    /**
     * Reads the file's header, matches its schema's fields to {@code schema} by name and opens the reader.
     *
     * @throws MalformedRecordException naming the first field the file lacks or holds with another type
     * @throws IOException if the input is not a readable Avro container file
     */
    static AvroRowFileReader open(Schema schema, RandomAccessInput input) throws MalformedRecordException, IOException {
        GenericDatumReader<Object> records = AvroRowDecoder.fileDatumReader();
        DataFileReader<Object> file;
        try {
            file = new DataFileReader<>(new Input(input), records);
        } catch (IOException | RuntimeException e) {
            throw new IOException("not a readable Avro container file: " + e.getMessage(), e);
        }
        org.apache.avro.Schema projection;
        try {
            projection = AvroSchemas.projection(file.getSchema(), schema);
        } catch (IllegalArgumentException e) {
            file.close();
            throw new MalformedRecordException(e.getMessage());
        }
        records.setExpected(projection);
        return new AvroRowFileReader(file, new AvroRowDecoder(schema, projection, new byte[0]));
    }

    @Override
    public Row next() throws IOException {
        try {
            if (!file.hasNext()) {
                return null;
            }
            return decoder.row(file.next(null));
        } catch (MalformedRecordException e) {
            throw new IOException("cannot read row " + rowIndex + ": " + e.getMessage(), e);
        } catch (AvroRowDecoder.BadField e) {
            throw new IOException("cannot read row " + rowIndex + ": " + e.describe(), e);
        } catch (IOException | RuntimeException e) {
            // Avro reports a corrupt block (a bad sync marker, a bad codec frame) as a runtime exception.
            throw new IOException("cannot read row " + rowIndex + ": " + e.getMessage(), e);
        } finally {
            rowIndex++;
        }
    }

    @Override
    public void close() throws IOException {
        file.close();
    }

    /** Avro's {@link SeekableInput} over the SPI's input; closing it leaves the input open. */
    private static final class Input implements SeekableInput {

        private final RandomAccessInput input;
        private long position;

        Input(RandomAccessInput input) {
            this.input = input;
        }

        @Override
        public void seek(long p) {
            position = p;
        }

        @Override
        public long tell() {
            return position;
        }

        @Override
        public long length() throws IOException {
            return input.length();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            int read = input.read(position, b, off, len);
            if (read > 0) {
                position += read;
            }
            return read;
        }

        @Override
        public void close() {
        }
    }
}
