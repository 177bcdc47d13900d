package dev.onceflow.format.parquet;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RandomAccessInput;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.format.RowFileReader;
import dev.onceflow.spi.format.RowFileWriter;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * Rows as Apache Parquet files, one whole file per part file of the filesystem sink (FMT-5), read
 * back whole by the file source (FMT-7).
 */
public final class ParquetFormatFactory implements FormatFactory {

    public static final Option<ParquetCompression> COMPRESSION = Option.enumOption("compression", ParquetCompression.class)
            .defaultValue(ParquetCompression.SNAPPY)
            .description("Codec of the file's pages: snappy, zstd, gzip or none.");

    public static final Option<Long> ROW_GROUP_SIZE = Option.longOption("row-group-size").defaultValue(128L << 20)
            .atLeast(1L << 10)
            .description("Bytes of a row group, buffered in memory per open file until they are written: a file holds "
                    + "one checkpoint interval's rows, in row groups of about this size.");

    @Override
    public String identifier() {
        return "parquet";
    }

    @Override
    public String description() {
        return "Rows as Apache Parquet files, written whole: one file per part file of the filesystem sink.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(COMPRESSION, ROW_GROUP_SIZE);
    }

    @Override
    public boolean writesWholeFiles() {
        return true;
    }

    /** Refused: a Parquet file is read whole ({@link #createFileReader}), never record by record. */
    @Override
    public RowDecoder createDecoder(Schema schema, OptionValues options) {
        throw new OptionException("format 'parquet' is read as whole files, not record by record; "
                + "use it with the file source");
    }

    /** Refused: a Parquet file is written whole, never record by record. */
    @Override
    public RowEncoder createEncoder(Schema schema, OptionValues options) {
        throw new OptionException("format 'parquet' writes whole files, not single records; "
                + "use it with the filesystem sink");
    }

    @Override
    public RowFileWriter createFileWriter(Schema schema, OptionValues options, OutputStream out) {
        return new ParquetRowFileWriter(ParquetSchemas.messageType(schema), schema, options.get(COMPRESSION),
                options.get(ROW_GROUP_SIZE), out);
    }

    @Override
    public RowFileReader createFileReader(Schema schema, OptionValues options, RandomAccessInput input)
            throws MalformedRecordException, IOException {
        return ParquetRowFileReader.open(schema, input);
    }
}
