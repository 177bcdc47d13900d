package dev.onceflow.conformance.filesystem;

import dev.onceflow.format.parquet.ParquetFiles;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** {@link WholeFileSinkJobCrashTest} on Parquet files (zstd), read back with Parquet's own reader. */
class ParquetJobCrashTest extends WholeFileSinkJobCrashTest {

    @Override
    Map<String, Object> sinkFormat() {
        return Map.of("type", "parquet", "options", Map.of("compression", "zstd"));
    }

    @Override
    String extension() {
        return ".parquet";
    }

    @Override
    List<Row> read(Path file, Schema schema) throws IOException {
        return ParquetFiles.read(file, schema);
    }
}
