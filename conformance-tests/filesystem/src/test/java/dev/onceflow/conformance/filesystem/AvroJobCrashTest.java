package dev.onceflow.conformance.filesystem;

import dev.onceflow.format.avro.AvroFiles;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@link WholeFileSinkJobCrashTest} on Avro container files (deflate), read back with Avro's own
 * {@code DataFileReader} and Avro's logical-type conversions.
 */
class AvroJobCrashTest extends WholeFileSinkJobCrashTest {

    @Override
    Map<String, Object> sinkFormat() {
        return Map.of("type", "avro", "options", Map.of("codec", "deflate"));
    }

    @Override
    String extension() {
        return ".avro";
    }

    @Override
    List<Row> read(Path file, Schema schema) throws IOException {
        return AvroFiles.read(file, schema);
    }
}
