package dev.onceflow.runtime.execution;

import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.runtime.checkpoint.RestoredCheckpoint;
import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of which checkpoint a job starts from, and of EO-5: a restore never goes back
 * past a completed checkpoint or savepoint without being told to. Its {@code _metadata} was
 * written before any sink was told to commit, so its output may be committed; restoring an older
 * one replays the records after that one into the sinks again.
 */
final class RestorePoints {

    private static final Logger LOG = LoggerFactory.getLogger(RestorePoints.class);

    private RestorePoints() {
    }

    /**
     * The checkpoint {@code restore} names, validated; {@code null} for a fresh start.
     *
     * @throws DuplicateRiskException if the newest completed checkpoint of the job cannot be read
     *     ({@link RestoreSetting.Latest}), or a newer one than the one given completed and
     *     duplicates were not accepted ({@link RestoreSetting.FromPath})
     * @throws IOException if the given directory is not a valid checkpoint or savepoint
     */
    static RestoredCheckpoint choose(String jobName, CheckpointStorage storage, RestoreSetting restore)
            throws IOException {
        if (restore instanceof RestoreSetting.Latest) {
            return newestCompleted(jobName, storage);
        }
        if (restore instanceof RestoreSetting.FromPath path) {
            RestoredCheckpoint chosen = CheckpointStorage.load(path.directory());
            CheckpointLocation newer = newerThan(storage, chosen.checkpointId());
            if (newer != null && !path.acceptDuplicates()) {
                throw new DuplicateRiskException(path.directory() + " is checkpoint " + chosen.checkpointId()
                        + ", but job " + jobName + " completed " + newer.name() + " after it (" + newer
                        + "), and sinks may already have committed the output of every checkpoint after "
                        + chosen.checkpointId() + ": restoring it writes that output again. Resume the newest"
                        + " with --resume latest, or accept duplicates with --resume " + path.directory()
                        + " --accept-duplicates (RestoreSetting.fromPath(dir).acceptingDuplicates())", null);
            }
            if (newer != null) {
                LOG.warn("Restoring {} (checkpoint {}) although job {} completed {} after it: output that sinks"
                        + " committed after checkpoint {} will be written again (duplicates accepted)",
                        path.directory(), chosen.checkpointId(), jobName, newer.name(), chosen.checkpointId());
            }
            return chosen;
        }
        return null;
    }

    private static RestoredCheckpoint newestCompleted(String jobName, CheckpointStorage storage) throws IOException {
        List<CheckpointLocation> completed = storage.completedNewestFirst();
        if (completed.isEmpty()) {
            return null; // incomplete directories never committed anything: a fresh start repeats nothing
        }
        CheckpointLocation newest = completed.get(0);
        try {
            return CheckpointStorage.load(newest);
        } catch (IOException corrupt) {
            CheckpointLocation older = newestReadable(completed.subList(1, completed.size()));
            throw new DuplicateRiskException(newest.name() + " is the newest completed checkpoint of job " + jobName
                    + " and cannot be read (" + oneLine(corrupt.getMessage()) + "); sinks may already have committed"
                    + " its output, so restoring an older one would write that output again. Repair " + newest
                    + " and run again with --resume latest, or "
                    + (older == null ? "delete the job's output and start over with --fresh (no older checkpoint"
                            + " can be read either)"
                            : "accept duplicates with --resume " + older + " --accept-duplicates"), corrupt);
        }
    }

    /** The newest of {@code candidates} (newest first) that loads; {@code null} if none does. */
    private static CheckpointLocation newestReadable(List<CheckpointLocation> candidates) {
        for (CheckpointLocation candidate : candidates) {
            try {
                CheckpointStorage.load(candidate);
                return candidate;
            } catch (IOException e) {
                LOG.info("{} cannot be read either: {}", candidate.name(), e.getMessage());
            }
        }
        return null;
    }

    /** The newest completed checkpoint or savepoint of the job with an id above {@code id}; {@code null} if none. */
    private static CheckpointLocation newerThan(CheckpointStorage storage, long id) throws IOException {
        List<CheckpointLocation> completed = storage.completedNewestFirst();
        return completed.isEmpty() || CheckpointStorage.idOf(completed.get(0)) <= id ? null : completed.get(0);
    }

    /** Parser messages run over several lines; the refusal is one. */
    private static String oneLine(String message) {
        return message == null ? "" : message.replaceAll("\\s*\\R\\s*", " ");
    }
}
