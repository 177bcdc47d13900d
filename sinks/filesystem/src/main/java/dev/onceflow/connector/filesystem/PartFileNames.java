package dev.onceflow.connector.filesystem;

import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of part files: {@code <prefix>-<subtask>-<checkpointId>-<part>-<attemptId><extension>}
 * once committed, and {@code .<that name>.inprogress} before.
 *
 * <p>The in-progress name is hidden (leading dot), so readers of the directory, the file source
 * among them, never see uncommitted data (2PC-1). The attempt id makes names unique across
 * attempts, so a replayed checkpoint never writes over a file an earlier attempt committed; the
 * part number tells apart the files one checkpoint's transaction rolled to. Subtask, checkpoint
 * and part are digits and come before the attempt id, so no two of these ever make the same name.
 * The subtask in the name lets {@code abortLingering} find the files of the subtasks it owns.
 */
final class PartFileNames {

    private static final String IN_PROGRESS_SUFFIX = ".inprogress";

    private final String prefix;
    private final String extension;
    private final Pattern inProgress;

    /** {@code extension} is appended to final names, {@code ""} or for example {@code ".gz"}. */
    PartFileNames(String prefix, String extension) {
        this.prefix = prefix;
        this.extension = extension;
        // Also matches the names of earlier builds, which had no part number.
        this.inProgress = Pattern.compile("\\." + Pattern.quote(prefix) + "-(\\d+)-\\d+-.+"
                + Pattern.quote(IN_PROGRESS_SUFFIX));
    }

    String finalName(int subtask, long checkpointId, int part, String attemptId) {
        return prefix + "-" + subtask + "-" + checkpointId + "-" + part + "-" + attemptId + extension;
    }

    String inProgressName(int subtask, long checkpointId, int part, String attemptId) {
        return "." + finalName(subtask, checkpointId, part, attemptId) + IN_PROGRESS_SUFFIX;
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
