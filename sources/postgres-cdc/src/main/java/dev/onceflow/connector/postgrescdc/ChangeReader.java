package dev.onceflow.connector.postgrescdc;

import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.ReaderOutput;
import dev.onceflow.spi.source.SourceReader;
import io.debezium.embedded.Connect;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the change split: a Debezium engine on a thread of its own hands each change (its rows and
 * its offset) through a bounded queue, which holds the engine back when the job is slower; {@link
 * #pollNext} emits them on the task thread and moves the split's position to the offset of the
 * last change emitted.
 *
 * <p><b>Checkpoints.</b> {@link #snapshotState} returns that position; once the checkpoint
 * completes, the engine's {@link CheckpointedOffsetStore} shows it to Debezium, which confirms the
 * slot up to it at its next commit. A restored reader starts its engine at the restored position,
 * which the slot is never past: Debezium skips what it already sent and emits exactly the changes
 * after it (SRC-1). A crash during the initial snapshot restarts the snapshot: its rows come again.
 */
final class ChangeReader implements SourceReader<Row, ChangeSplit> {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeReader.class);
    /** Changes waiting for the task thread; the engine waits while it is full. */
    private static final int QUEUE_CAPACITY = 2048;
    /** The most changes one poll emits, so that barriers never wait long behind a poll. */
    private static final int CHANGES_PER_POLL = 500;

    /** One change event: its rows, and the offset to resume after it. */
    private record Change(List<Row> rows, String offset) {
    }

    private final PostgresCdcSource.Settings settings;
    private final ChangeRows changeRows;
    private final JsonConverter offsetJson = new JsonConverter();
    private final BlockingQueue<Change> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private final AtomicReference<Throwable> engineFailure = new AtomicReference<>();
    /** The position each checkpoint not yet completed holds, by checkpoint id. */
    private final TreeMap<Long, String> pending = new TreeMap<>();
    private volatile boolean closing;

    private ChangeSplit split;
    private String position;
    private boolean started;
    private CheckpointedOffsetStore.Handle offsets;
    private DebeziumEngine<ChangeEvent<SourceRecord, SourceRecord>> engine;
    private Thread engineThread;

    ChangeReader(PostgresCdcSource.Settings settings) {
        this.settings = settings;
        this.changeRows = new ChangeRows(settings.table().schema());
        // As Debezium's embedded engine writes offsets: plain JSON, no schemas.
        offsetJson.configure(Map.of("schemas.enable", "false"), false);
    }

    @Override
    public void addSplits(List<ChangeSplit> splits) {
        if (splits.isEmpty()) {
            return;
        }
        if (split != null || splits.size() > 1) {
            throw new IllegalStateException("a postgres-cdc reader reads one split, got " + splits + " with " + split);
        }
        split = splits.get(0);
        position = split.offset();
        if (started) {
            startEngine();
        }
    }

    @Override
    public void start() {
        started = true;
        if (split != null) {
            startEngine();
        }
    }

    private void startEngine() {
        offsets = CheckpointedOffsetStore.Handle.open(position);
        engine = DebeziumEngine.create(Connect.class)
                .using(engineProperties(offsets.id()))
                .notifying(this::handleBatch)
                .using((success, message, error) -> {
                    if (!success && !closing) {
                        engineFailure.compareAndSet(null, error != null ? error
                                : new IllegalStateException("the Debezium engine stopped: " + message));
                    }
                })
                .build();
        engineThread = new Thread(engine, "postgres-cdc-" + settings.slot());
        engineThread.setDaemon(true);
        engineThread.start();
        LOG.info("Reading {} from {}", settings, position == null ? "the start" : "offset " + position);
    }

    private Properties engineProperties(String handle) {
        Properties p = new Properties();
        p.setProperty("name", "onceflow-postgres-cdc");
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("offset.storage", CheckpointedOffsetStore.class.getName());
        p.setProperty(CheckpointedOffsetStore.HANDLE_PROPERTY, handle);
        p.setProperty("offset.flush.interval.ms", "0");
        p.setProperty("topic.prefix", "onceflow");
        p.setProperty("database.hostname", settings.host());
        p.setProperty("database.port", Integer.toString(settings.port()));
        p.setProperty("database.dbname", settings.database());
        p.setProperty("database.user", settings.user());
        if (settings.password() != null) {
            p.setProperty("database.password", settings.password());
        }
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", settings.slot());
        p.setProperty("publication.name", settings.publication());
        p.setProperty("publication.autocreate.mode", "filtered");
        // A regular expression: the dot between schema and table matches only a dot.
        p.setProperty("table.include.list", settings.table().qualifiedName().replace(".", "\\."));
        p.setProperty("snapshot.mode", settings.snapshot() == PostgresCdcSource.Snapshot.INITIAL ? "initial" : "no_data");
        p.setProperty("decimal.handling.mode", "string");
        p.setProperty("time.precision.mode", "adaptive_time_microseconds");
        p.setProperty("binary.handling.mode", "bytes");
        p.setProperty("tombstones.on.delete", "false");
        // How often the slot's confirmed position is sent to the server (default 10 s): the WAL up to
        // the last completed checkpoint is released about a second after it.
        p.setProperty("status.update.interval.ms", "1000");
        return p;
    }

    /** On the engine's thread: queues each change, waiting while the queue is full. */
    private void handleBatch(List<ChangeEvent<SourceRecord, SourceRecord>> events,
            DebeziumEngine.RecordCommitter<ChangeEvent<SourceRecord, SourceRecord>> committer)
            throws InterruptedException {
        for (ChangeEvent<SourceRecord, SourceRecord> event : events) {
            SourceRecord record = event.value();
            List<Row> rows = changeRows.of(record);
            if (!rows.isEmpty()) {
                String offset = new String(offsetJson.fromConnectData("offset", null, record.sourceOffset()),
                        StandardCharsets.UTF_8);
                Change change = new Change(rows, offset);
                while (!queue.offer(change, 100, TimeUnit.MILLISECONDS)) {
                    if (closing) {
                        throw new InterruptedException("the postgres-cdc reader is closing");
                    }
                }
            }
            // Debezium's own record of progress; its offset store keeps none of it.
            committer.markProcessed(event);
        }
        committer.markBatchFinished();
    }

    @Override
    public InputStatus pollNext(ReaderOutput<Row> output) throws Exception {
        Throwable failure = engineFailure.get();
        if (failure != null) {
            throw new IllegalStateException("postgres-cdc " + settings.table().qualifiedName() + " (slot '"
                    + settings.slot() + "'): " + failure.getMessage(), failure);
        }
        for (int i = 0; i < CHANGES_PER_POLL; i++) {
            Change change = queue.poll();
            if (change == null) {
                return InputStatus.NOTHING_AVAILABLE;
            }
            for (Row row : change.rows()) {
                output.collect(row);
            }
            position = change.offset();
        }
        return queue.isEmpty() ? InputStatus.NOTHING_AVAILABLE : InputStatus.MORE_AVAILABLE;
    }

    @Override
    public List<ChangeSplit> snapshotState(long checkpointId) {
        if (split == null) {
            return List.of();
        }
        pending.put(checkpointId, position);
        return List.of(new ChangeSplit(position));
    }

    /** The slot may now move up to this checkpoint's position: a restore never goes behind it. */
    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        Map.Entry<Long, String> completed = pending.floorEntry(checkpointId);
        if (completed == null) {
            return;
        }
        pending.headMap(checkpointId, true).clear();
        if (completed.getValue() != null && offsets != null) {
            offsets.checkpointCompleted(completed.getValue());
        }
    }

    @Override
    public void notifyNoMoreSplits() {
    }

    @Override
    public void close() throws Exception {
        closing = true;
        try {
            if (engine != null) {
                engine.close();
            }
            if (engineThread != null) {
                engineThread.join(TimeUnit.SECONDS.toMillis(30));
            }
        } finally {
            if (offsets != null) {
                offsets.close();
            }
        }
    }
}
