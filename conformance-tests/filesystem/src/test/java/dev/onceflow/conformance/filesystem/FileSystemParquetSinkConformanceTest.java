package dev.onceflow.conformance.filesystem;

import dev.onceflow.conformance.SinkConformanceSuite;
import dev.onceflow.conformance.SinkExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.format.parquet.ParquetFiles;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.Row;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The whole sink suite against the filesystem sink writing {@code format: parquet} on local disk:
 * one Parquet file per subtask and checkpoint, whose oracle reads every committed file with
 * Parquet's own reader. A file that is not a complete Parquet file (no footer) fails the case.
 */
class FileSystemParquetSinkConformanceTest extends SinkConformanceSuite {

    @Override
    protected SinkExternalSystem externalSystem() {
        return new ParquetDirectoryFixture();
    }

    /** The line suite's local directory, written as Parquet and read with Parquet's reader. */
    static final class ParquetDirectoryFixture extends FileSystemSinkConformanceTest.LocalDirectoryFixture {

        @Override
        public String variant() {
            return "parquet";
        }

        @Override
        public Optional<Object> sinkFormat() {
            return Optional.of("parquet");
        }

        /** Every row of every visible file, as the events the suite compares. */
        @Override
        public List<Event> readCommitted(TestDestination destination) throws IOException {
            Path directory = output(destination);
            List<Event> events = new ArrayList<>();
            if (!Files.isDirectory(directory)) {
                return events;
            }
            try (Stream<Path> files = Files.list(directory)) {
                for (Path file : files.filter(f -> !hidden(f)).sorted().toList()) {
                    for (Row row : ParquetFiles.read(file, EventRows.SCHEMA)) {
                        events.add(EventRows.toEvent(row));
                    }
                }
            }
            return events;
        }

        private static boolean hidden(Path file) {
            String name = file.getFileName().toString();
            return name.startsWith(".") || name.startsWith("_");
        }
    }
}
