package dev.onceflow.format.parquet;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * How the pages of a Parquet file are compressed: the codecs that work on every machine Onceflow
 * runs on without native libraries of Hadoop's (snappy and zstd load the JNI libraries their own
 * jars ship; gzip is the JDK's).
 */
public enum ParquetCompression {

    NONE(CompressionCodecName.UNCOMPRESSED),
    SNAPPY(CompressionCodecName.SNAPPY),
    ZSTD(CompressionCodecName.ZSTD),
    GZIP(CompressionCodecName.GZIP);

    private final CompressionCodecName codec;

    ParquetCompression(CompressionCodecName codec) {
        this.codec = codec;
    }

    CompressionCodecName codec() {
        return codec;
    }
}
