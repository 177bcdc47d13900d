package dev.onceflow.connector.file;

import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Discovers the files of a directory and hands them out one per request.
 *
 * <p>Assignment is pull-based: a reader asks ({@link #handleSplitRequest}) when it has nothing
 * left to read, so busy readers are not given more and a reader restored with its files is not
 * given extra ones; {@link #addReader} therefore assigns nothing. (On Flink, the bridge asks once
 * on behalf of a reader restarted by a regional failover that got nothing back; if that reader
 * restored files, it holds one more until it reads them.) A request that cannot be
 * answered waits: in continuous mode until discovery finds a file, in bounded mode it is answered
 * with "no more splits" once every file is handed out.
 *
 * <p>Every discovered path is remembered (and checkpointed), so a file is assigned at most once
 * in the life of the job, across restores.
 */
final class FileEnumerator implements SplitEnumerator<FileSplit, FileEnumeratorState> {

    private final SplitEnumeratorContext<FileSplit> context;
    private final Path directory;
    private final Configuration conf;
    private final Duration discoveryInterval;
    private final boolean discoverAtStart;
    private final Deque<FileSplit> unassigned;
    private final Set<String> discovered;
    private final Set<Integer> waitingReaders = new LinkedHashSet<>();

    /**
     * @param discoveryInterval period of re-listing; {@code null} for a bounded source
     * @param discoverAtStart whether {@link #start()} lists the directory
     */
    FileEnumerator(SplitEnumeratorContext<FileSplit> context, Path directory, Configuration conf,
            Duration discoveryInterval, boolean discoverAtStart, FileEnumeratorState state) {
        this.context = context;
        this.directory = directory;
        this.conf = conf;
        this.discoveryInterval = discoveryInterval;
        this.discoverAtStart = discoverAtStart;
        this.unassigned = new ArrayDeque<>(state.unassigned());
        this.discovered = new HashSet<>(state.discovered());
    }

    @Override
    public void start() {
        if (discoverAtStart) {
            discover();
        }
        if (discoveryInterval != null) {
            context.runPeriodically(() -> {
                discover();
                assignToWaitingReaders();
            }, discoveryInterval);
        }
    }

    @Override
    public void addReader(int subtaskIndex) {
        // Nothing: the reader asks for a split as soon as it has nothing to read.
    }

    @Override
    public void handleSplitRequest(int subtaskIndex) {
        waitingReaders.add(subtaskIndex);
        assignToWaitingReaders();
    }

    private void assignToWaitingReaders() {
        var readers = waitingReaders.iterator();
        while (readers.hasNext() && !unassigned.isEmpty()) {
            int reader = readers.next();
            readers.remove();
            context.assignSplits(reader, List.of(unassigned.poll()));
        }
        if (discoveryInterval == null && unassigned.isEmpty()) {
            for (int reader : waitingReaders) {
                context.signalNoMoreSplits(reader);
            }
            waitingReaders.clear();
        }
    }

    /** Lists the directory and queues files never seen before, in name order. */
    private void discover() {
        FileStatus[] statuses;
        try {
            FileSystem fs = FileSystemPaths.fileSystemOf(directory, conf);
            statuses = fs.listStatus(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the input directory " + directory, e);
        }
        Arrays.sort(statuses, Comparator.comparing(FileStatus::getPath));
        for (FileStatus status : statuses) {
            String name = status.getPath().getName();
            // Hidden files are the in-progress files of writers (the filesystem sink's among them).
            boolean hidden = name.startsWith(".") || name.startsWith("_");
            if (status.isFile() && !hidden && discovered.add(status.getPath().toString())) {
                unassigned.add(new FileSplit(status.getPath().toString(), 0));
            }
        }
    }

    @Override
    public FileEnumeratorState snapshotState(long checkpointId) {
        return new FileEnumeratorState(List.copyOf(unassigned), discovered);
    }

    @Override
    public void close() {
    }
}
