package dev.onceflow.conformance.filesystem;

import dev.onceflow.format.parquet.ParquetFormatFactory;
import dev.onceflow.spi.format.FormatFactory;
import java.util.Map;

/** {@link WholeFileSourceJobCrashTest} on Parquet files of several row groups. */
class ParquetSourceJobCrashTest extends WholeFileSourceJobCrashTest {

    @Override
    FormatFactory format() {
        return new ParquetFormatFactory();
    }

    @Override
    Map<String, String> writerOptions() {
        return Map.of("row-group-size", "65536");
    }

    @Override
    String missingPriceField() {
        return "field 'price' is not in the file, whose columns are \\[id, flag, ";
    }
}
