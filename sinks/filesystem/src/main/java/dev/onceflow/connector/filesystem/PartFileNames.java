package dev.onceflow.connector.filesystem;

import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of part files: {@code <prefix>-<subtask>-<checkpointId>-<attemptId>} once committed,
 * and {@code .<prefix>-<subtask>-<checkpointId>-<attemptId>.inprogress} before.
 *
 * <p>The in-progress name is hidden (leading dot), so readers of the directory, the file source
 * among them, never see uncommitted data (2PC-1). The attempt id makes names unique across
 * attempts, so a replayed checkpoint never writes over a file an earlier attempt committed. The
 * subtask in the name lets {@code abortLingering} find the files of the subtasks it owns.
 */
final class PartFileNames {

    private static final String IN_PROGRESS_SUFFIX = ".inprogress";

    private final String prefix;
    private final Pattern inProgress;

    PartFileNames(String prefix) {
        this.prefix = prefix;
        this.inProgress = Pattern.compile("\\." + Pattern.quote(prefix) + "-(\\d+)-\\d+-.+"
                + Pattern.quote(IN_PROGRESS_SUFFIX));
    }

    String finalName(int subtask, long checkpointId, String attemptId) {
        return prefix + "-" + subtask + "-" + checkpointId + "-" + attemptId;
    }

    String inProgressName(int subtask, long checkpointId, String attemptId) {
        return "." + finalName(subtask, checkpointId, attemptId) + IN_PROGRESS_SUFFIX;
    }

    /** The subtask that wrote {@code fileName}, if it is an in-progress file of this sink. */
    OptionalInt inProgressSubtask(String fileName) {
        Matcher matcher = inProgress.matcher(fileName);
        if (!matcher.matches()) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(matcher.group(1)));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }
}
