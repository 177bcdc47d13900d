package dev.onceflow.connector.file;

import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.ReaderOutput;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * Reads the files assigned to one subtask line by line (or, for a format such as Parquet, as whole
 * files: {@link WholeFileCursor}), at most {@value #MAX_RECORDS_PER_POLL}
 * events per poll, and asks the enumerator for another file whenever it has nothing left to do.
 *
 * <p><b>Bounded</b>: files are read one after the other; a finished file is dropped (it is never
 * read again, so it is not snapshotted) and a last line without {@code \n} is emitted at the end.
 * <b>Continuous</b>: files are never finished, because they may grow. At the end of a file the
 * stream is closed and the file's length is checked again every {@code growthCheckInterval}; an
 * unterminated last line waits until its {@code \n} arrives.
 *
 * <p>A file that shrinks or disappears after it was assigned fails the reader rather than being
 * skipped: its unread lines would otherwise be lost without a trace.
 */
final class FileSourceReader<T> implements SourceReader<T, FileSplit> {

    /** Events per poll: small enough that the task thread gets back to its mailbox quickly. */
    static final int MAX_RECORDS_PER_POLL = 100;

    private final SourceReaderContext context;
    private final Configuration conf;
    private final LineDecoding<T> format;
    private final LineDecoding.Parser<T> parser;
    private final WholeFileDecoding<T> wholeFiles;
    private final boolean continuous;
    private final long growthCheckNanos;
    private final List<SplitCursor<T>> cursors = new ArrayList<>();
    private boolean splitRequested;
    private boolean noMoreSplits;
    private int rotation;

    /**
     * @param format how lines become records; {@code null} where files are read whole
     * @param wholeFiles how files read whole become records; {@code null} for lines
     * @param growthCheckInterval how often a continuous reader checks a fully read file for growth;
     *     {@code null} for a bounded reader
     */
    FileSourceReader(SourceReaderContext context, Configuration conf, LineDecoding<T> format,
            WholeFileDecoding<T> wholeFiles, Duration growthCheckInterval) {
        this.context = context;
        this.conf = conf;
        this.format = format;
        this.parser = format == null ? null : format.newParser();
        this.wholeFiles = wholeFiles;
        this.continuous = growthCheckInterval != null;
        this.growthCheckNanos = continuous ? growthCheckInterval.toNanos() : 0;
    }

    @Override
    public void start() {
        requestSplitIfIdle();
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws IOException {
        return continuous ? pollContinuous(output) : pollBounded(output);
    }

    private InputStatus pollBounded(ReaderOutput<T> output) throws IOException {
        int budget = MAX_RECORDS_PER_POLL;
        while (budget > 0 && !cursors.isEmpty()) {
            SplitCursor<T> cursor = cursors.get(0);
            budget -= cursor.emit(output, budget, true);
            if (cursor.atEnd()) {
                cursors.remove(0);
                cursor.close();
            }
        }
        if (!cursors.isEmpty()) {
            return InputStatus.MORE_AVAILABLE;
        }
        if (noMoreSplits) {
            return InputStatus.END_OF_INPUT;
        }
        requestSplitIfIdle();
        return InputStatus.NOTHING_AVAILABLE;
    }

    private InputStatus pollContinuous(ReaderOutput<T> output) throws IOException {
        int budget = MAX_RECORDS_PER_POLL;
        long now = System.nanoTime();
        // Start at a different file each poll so one large file cannot starve the others.
        int count = cursors.size();
        int start = count == 0 ? 0 : Math.floorMod(rotation++, count);
        for (int i = 0; i < count && budget > 0; i++) {
            SplitCursor<T> cursor = cursors.get((start + i) % count);
            if (cursor.atEnd() && !cursor.grew(now, growthCheckNanos)) {
                continue;
            }
            budget -= cursor.emit(output, budget, false);
        }
        if (cursors.stream().allMatch(SplitCursor::atEnd)) {
            requestSplitIfIdle();
            return InputStatus.NOTHING_AVAILABLE;
        }
        return InputStatus.MORE_AVAILABLE;
    }

    /** Asks for one more file when every owned file is done, once until an answer arrives. */
    private void requestSplitIfIdle() {
        if (!splitRequested && !noMoreSplits && cursors.stream().allMatch(SplitCursor::atEnd)) {
            splitRequested = true;
            context.sendSplitRequest();
        }
    }

    @Override
    public List<FileSplit> snapshotState(long checkpointId) {
        return cursors.stream().map(SplitCursor::split).toList();
    }

    @Override
    public void addSplits(List<FileSplit> splits) {
        splitRequested = false;
        for (FileSplit split : splits) {
            cursors.add(wholeFiles != null ? new WholeFileCursor<>(split, wholeFiles, conf)
                    : new FileCursor<>(split, format, parser, conf));
        }
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
    }

    @Override
    public void close() throws IOException {
        IOException failure = null;
        for (SplitCursor<T> cursor : cursors) {
            try {
                cursor.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        cursors.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
