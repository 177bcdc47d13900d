package dev.onceflow.format.parquet;

import dev.onceflow.spi.format.RandomAccessInput;
import java.io.IOException;
import java.io.InputStream;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Parquet's {@link InputFile} over the SPI's {@link RandomAccessInput}: each stream Parquet opens
 * keeps its own position and reads at it, so streams never disturb one another.
 */
final class InputFiles {

    private InputFiles() {
    }

    static InputFile of(RandomAccessInput input) {
        return new InputFile() {
            @Override
            public long getLength() throws IOException {
                return input.length();
            }

            @Override
            public SeekableInputStream newStream() {
                PositionedStream stream = new PositionedStream(input);
                return new DelegatingSeekableInputStream(stream) {
                    @Override
                    public long getPos() {
                        return stream.position;
                    }

                    @Override
                    public void seek(long newPos) {
                        stream.position = newPos;
                    }
                };
            }
        };
    }

    /** An input stream at a movable position of the input. Closing it leaves the input open. */
    private static final class PositionedStream extends InputStream {

        private final RandomAccessInput input;
        private long position;

        PositionedStream(RandomAccessInput input) {
            this.input = input;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            int read = input.read(position, buffer, offset, length);
            if (read > 0) {
                position += read;
            }
            return read;
        }
    }
}
