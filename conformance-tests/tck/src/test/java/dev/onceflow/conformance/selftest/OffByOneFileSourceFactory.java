package dev.onceflow.conformance.selftest;

import dev.onceflow.connector.file.FileEnumeratorState;
import dev.onceflow.connector.file.FileFormat;
import dev.onceflow.connector.file.FileSource;
import dev.onceflow.connector.file.FileSourceFactory;
import dev.onceflow.connector.file.FileSplit;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.source.Boundedness;
import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.ReaderOutput;
import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Breaks SRC-1: the file source, except that its reader resumes a restored split one line after
 * the restored position (an off-by-one a reader makes when it treats the position as "last line
 * emitted" rather than "next line to read"). Splits handed out fresh by the enumerator, which
 * start at offset 0 after the reader started, are read correctly, so a run without crashes is
 * right.
 */
public final class OffByOneFileSourceFactory implements SourceFactory {

    public static final String IDENTIFIER = "broken-file-off-by-one";

    private static final FileSourceFactory REAL = new FileSourceFactory();

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public String description() {
        return "The file source, deliberately broken, for the conformance suite's own tests.";
    }

    @Override
    public List<Option<?>> options() {
        return REAL.options();
    }

    @Override
    public ReplayableSource<Event, ?, ?> createSource(OptionValues options) {
        FileFormat format = options.get(FileSourceFactory.FORMAT);
        return new OffByOneSource(FileSource.builder(options.get(FileSourceFactory.PATH)).format(format)
                .discoveryInterval(options.getOptional(FileSourceFactory.DISCOVERY_INTERVAL)).build());
    }

    private record OffByOneSource(FileSource real) implements ReplayableSource<Event, FileSplit, FileEnumeratorState> {

        @Override
        public Boundedness boundedness() {
            return real.boundedness();
        }

        @Override
        public SplitEnumerator<FileSplit, FileEnumeratorState> createEnumerator(SplitEnumeratorContext<FileSplit> context) {
            return real.createEnumerator(context);
        }

        @Override
        public SplitEnumerator<FileSplit, FileEnumeratorState> restoreEnumerator(SplitEnumeratorContext<FileSplit> context,
                FileEnumeratorState state) {
            return real.restoreEnumerator(context, state);
        }

        @Override
        public SourceReader<Event, FileSplit> createReader(SourceReaderContext context) {
            return new OffByOneReader(real.createReader(context));
        }

        @Override
        public SimpleVersionedSerializer<FileSplit> splitSerializer() {
            return real.splitSerializer();
        }

        @Override
        public SimpleVersionedSerializer<FileEnumeratorState> enumeratorStateSerializer() {
            return real.enumeratorStateSerializer();
        }
    }

    private static final class OffByOneReader implements SourceReader<Event, FileSplit> {

        private final SourceReader<Event, FileSplit> real;
        private boolean started;

        OffByOneReader(SourceReader<Event, FileSplit> real) {
            this.real = real;
        }

        @Override
        public void addSplits(List<FileSplit> splits) {
            real.addSplits(splits.stream().map(split -> started && split.offset() == 0 ? split : skipOneLine(split)).toList());
        }

        /** The split positioned after the line that starts at its offset: that line is lost. */
        private static FileSplit skipOneLine(FileSplit split) {
            Path file = Path.of(new org.apache.hadoop.fs.Path(split.path()).toUri());
            try (SeekableByteChannel channel = Files.newByteChannel(file);
                    InputStream in = Channels.newInputStream(channel.position(split.offset()))) {
                long offset = split.offset();
                int b;
                while ((b = in.read()) != -1) {
                    offset++;
                    if (b == '\n') {
                        break;
                    }
                }
                return new FileSplit(split.path(), offset);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot skip a line of " + split, e);
            }
        }

        @Override
        public void start() throws Exception {
            started = true;
            real.start();
        }

        @Override
        public InputStatus pollNext(ReaderOutput<Event> output) throws Exception {
            return real.pollNext(output);
        }

        @Override
        public List<FileSplit> snapshotState(long checkpointId) throws Exception {
            return real.snapshotState(checkpointId);
        }

        @Override
        public void notifyNoMoreSplits() {
            real.notifyNoMoreSplits();
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            real.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            real.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void close() throws Exception {
            real.close();
        }
    }
}
