package dev.onceflow.connector.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.WriteAheadWriter;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** WAL-1 to WAL-3 for the write-ahead mode on a real PostgreSQL: rows and marker commit together. */
@SuppressWarnings("try") // the SPI's close() throws Exception
class JdbcWriteAheadSinkTest {

    private static final AtomicInteger CASES = new AtomicInteger();

    @RegisterExtension
    static final PostgresServer server = new PostgresServer(0);

    private String table;
    private String job;

    @BeforeEach
    void freshNames() {
        int n = CASES.incrementAndGet();
        table = "wal_" + n;
        job = "job" + n;
    }

    @Test
    void sendWritesTheRowsAndTheMarkerSoACrashBeforeCommitCheckpointLosesAndRepeatsNothing() throws Exception {
        SinkContext first = context(0, 2, OptionalLong.empty());
        try (CheckpointCommitter committer = open(first); WriteAheadWriter<Event> writer = sink().createWriter(first)) {
            assertThat(committer.isCheckpointCommitted(0, 1)).isFalse();
            assertThat(writer.sendValues(events(0, 5), 0, 1, 0L)).isTrue();
            // the process dies here, before commitCheckpoint (fault point sink.wal-after-send)
        }

        SinkContext recovered = context(0, 2, OptionalLong.of(1));
        try (CheckpointCommitter committer = open(recovered)) {
            assertThat(committer.isCheckpointCommitted(0, 1)).as("WAL-3: the marker committed with the rows").isTrue();
            committer.commitCheckpoint(0, 1); // idempotent
            assertThat(committer.isCheckpointCommitted(0, 1)).isTrue();
            assertThat(committer.isCheckpointCommitted(1, 1)).as("another subtask's segment").isFalse();
        }
        assertThat(ids()).containsExactly("0", "1", "2", "3", "4");
    }

    @Test
    void aSegmentWrittenByAnotherAttemptFirstIsSkippedNotDuplicated() throws Exception {
        SinkContext context = context(0, 1, OptionalLong.empty());
        try (CheckpointCommitter committer = open(context);
                WriteAheadWriter<Event> zombie = sink().createWriter(context);
                WriteAheadWriter<Event> current = sink().createWriter(context)) {
            assertThat(zombie.sendValues(events(0, 3), 0, 7, 0L)).isTrue();
            assertThat(current.sendValues(events(0, 3), 0, 7, 0L)).isTrue();
        }
        assertThat(ids()).containsExactly("0", "1", "2");
    }

    @Test
    void aBadRowFailsTheSendNamingItsIdAndLeavesNeitherRowsNorMarker() throws Exception {
        SinkContext context = context(0, 1, OptionalLong.empty());
        List<Event> segment = List.of(new Event("1", "k", "fine", 1), new Event("2", "k", "nul \0", 1));
        try (CheckpointCommitter committer = open(context); WriteAheadWriter<Event> writer = sink().createWriter(context)) {
            assertThatThrownBy(() -> writer.sendValues(segment, 0, 1, 0L)).isInstanceOf(SQLException.class)
                    .hasMessageContaining("record id '2'");
            assertThat(committer.isCheckpointCommitted(0, 1)).isFalse();
        }
        assertThat(ids()).isEmpty();
    }

    @Test
    void markersOfAnAbandonedHistoryAreForgottenForOwnedSubtasksOnly() throws Exception {
        // Parallelism 3 wrote checkpoints 1..3 of subtasks 0..2; the job then restores checkpoint 1 at parallelism 2.
        try (CheckpointCommitter committer = open(context(0, 3, OptionalLong.empty()))) {
            for (int subtask = 0; subtask < 3; subtask++) {
                for (long checkpoint = 1; checkpoint <= 3; checkpoint++) {
                    committer.commitCheckpoint(subtask, checkpoint);
                }
            }
        }
        try (CheckpointCommitter subtask0 = open(new SinkContext(job, "sink", 0, 2, 3, OptionalLong.of(1), "b"))) {
            // owns former subtasks 0 and 2
            assertThat(committed(subtask0, 3)).containsExactly("0-1", "1-1", "1-2", "1-3", "2-1");
        }
        try (CheckpointCommitter subtask1 = open(new SinkContext(job, "sink", 1, 2, 3, OptionalLong.of(1), "b"))) {
            assertThat(committed(subtask1, 3)).containsExactly("0-1", "1-1", "2-1");
        }
        try (CheckpointCommitter fresh = open(context(0, 1, OptionalLong.empty()))) {
            assertThat(committed(fresh, 3)).as("a fresh start forgets everything of its job and sink").isEmpty();
        }
    }

    @Test
    void markersOfOtherJobsAndSinksAreLeftAlone() throws Exception {
        try (CheckpointCommitter other = open(new SinkContext(job + "-other", "sink", 0, 1, 1, OptionalLong.empty(), "a"))) {
            other.commitCheckpoint(0, 5);
        }
        try (CheckpointCommitter mine = open(context(0, 1, OptionalLong.empty()))) {
            assertThat(mine.isCheckpointCommitted(0, 5)).isFalse();
        }
        assertThat(server.query("SELECT job, checkpoint_id FROM onceflow_checkpoints WHERE job = '" + job + "-other'"))
                .containsExactly(List.of(job + "-other", "5"));
    }

    private List<String> committed(CheckpointCommitter committer, int subtasks) throws Exception {
        return IntStream.range(0, subtasks).boxed().flatMap(subtask -> IntStream.rangeClosed(1, 3)
                .filter(checkpoint -> isCommitted(committer, subtask, checkpoint))
                .mapToObj(checkpoint -> subtask + "-" + checkpoint)).toList();
    }

    private static boolean isCommitted(CheckpointCommitter committer, int subtask, long checkpoint) {
        try {
            return committer.isCheckpointCommitted(subtask, checkpoint);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private CheckpointCommitter open(SinkContext context) throws Exception {
        CheckpointCommitter committer = sink().createCommitter(context);
        committer.open();
        return committer;
    }

    private JdbcWriteAheadSink sink() {
        return JdbcSink.builder(server.url(), table).user("postgres").batchSize(2).buildWriteAhead();
    }

    private SinkContext context(int subtask, int parallelism, OptionalLong restored) {
        return new SinkContext(job, "sink", subtask, parallelism, parallelism, restored, "attempt");
    }

    private List<String> ids() throws SQLException {
        return server.query("SELECT id FROM " + table + " ORDER BY id").stream().map(row -> row.get(0)).toList();
    }

    private static List<Event> events(int from, int to) {
        return IntStream.range(from, to).mapToObj(id -> new Event(Integer.toString(id), "k", "p", id)).toList();
    }
}
