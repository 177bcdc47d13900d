package dev.onceflow.connector.file;

import dev.onceflow.spi.source.SourceSplit;
import java.util.Objects;

/**
 * One input file and how far it has been read.
 *
 * @param path the file's fully qualified path (with scheme), as discovered
 * @param offset byte offset of the first line not yet emitted, everything before it was emitted; for
 *     files read whole (Parquet), the number of records already emitted from the file
 */
public record FileSplit(String path, long offset) implements SourceSplit {

    public FileSplit {
        Objects.requireNonNull(path, "path");
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset + " for " + path);
        }
    }

    @Override
    public String splitId() {
        return path;
    }
}
