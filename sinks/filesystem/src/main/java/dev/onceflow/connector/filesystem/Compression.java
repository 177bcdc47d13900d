package dev.onceflow.connector.filesystem;

import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.GZIPOutputStream;

/** How part files are compressed; each part file is a complete, independently readable file. */
public enum Compression {

    /** Plain text, one event per line. */
    NONE("") {
        @Override
        OutputStream wrap(OutputStream out) {
            return out;
        }
    },

    /** One gzip stream per part file (RFC 1952), readable by {@code gzip -d}, Hadoop and Spark. */
    GZIP(".gz") {
        @Override
        OutputStream wrap(OutputStream out) throws IOException {
            return new GZIPOutputStream(out, PartFileStream.BUFFER_BYTES);
        }
    };

    private final String extension;

    Compression(String extension) {
        this.extension = extension;
    }

    /** Appended to final part file names. */
    String extension() {
        return extension;
    }

    /** A stream that compresses into {@code out}; closing it finishes the format and closes {@code out}. */
    abstract OutputStream wrap(OutputStream out) throws IOException;
}
