package dev.onceflow.spi.sink;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * The decoded form of a deterministic transaction id (rule 2PC-8):
 * {@code <job>:<sinkUid>:<subtask>:<checkpointId>}, where job and sink uid are escaped so that
 * neither can contain the separator. Every id names exactly one (job, sink, subtask,
 * checkpoint): job {@code orders} with sink {@code eu-db} is {@code orders:eu-db:0:7}, job
 * {@code orders-eu} with sink {@code db} is {@code orders-eu:db:0:7}.
 *
 * <p>Escaping: letters, digits, {@code '.'}, {@code '_'} and {@code '-'} (everything a job name
 * or uid of the runtime may hold) stand for themselves; any other character is written as
 * {@code %XX} per UTF-8 byte. An id is therefore plain ASCII, without quotes or backslashes.
 *
 * <p>Ids written before this encoding, {@code <job>-<sinkUid>-<subtask>-<checkpointId>}, are
 * ambiguous when names contain {@code '-'}; {@link #parseLegacy} reads them back for one known
 * job and sink only, so that a job resuming from an old checkpoint can still clean up after itself.
 *
 * @param jobName the job's name
 * @param sinkUid the sink's uid
 * @param subtask the subtask that began the transaction, {@code >= 0}
 * @param checkpointId the checkpoint whose barrier pre-commits it, {@code >= 0}
 */
public record TransactionId(String jobName, String sinkUid, int subtask, long checkpointId) {

    /** Separates the four parts; never part of an escaped name. */
    public static final char SEPARATOR = ':';

    public TransactionId {
        Objects.requireNonNull(jobName, "jobName");
        Objects.requireNonNull(sinkUid, "sinkUid");
        if (jobName.isEmpty() || sinkUid.isEmpty()) {
            throw new IllegalArgumentException("job name and sink uid must not be empty (job '" + jobName
                    + "', sink uid '" + sinkUid + "')");
        }
        if (subtask < 0 || checkpointId < 0) {
            throw new IllegalArgumentException("negative subtask " + subtask + " or checkpoint id " + checkpointId);
        }
    }

    /** The id as the external system stores it. */
    public String encode() {
        return prefix(jobName, sinkUid) + subtask + SEPARATOR + checkpointId;
    }

    /**
     * What every id of this job and sink starts with, and no id of any other job or sink does:
     * {@code <job>:<sinkUid>:}.
     */
    public static String prefix(String jobName, String sinkUid) {
        return escape(jobName) + SEPARATOR + escape(sinkUid) + SEPARATOR;
    }

    /** The decoded id, or empty if {@code id} is not in this encoding. */
    public static Optional<TransactionId> parse(String id) {
        String[] parts = id.split(String.valueOf(SEPARATOR), -1);
        if (parts.length != 4 || !isNumber(parts[2]) || !isNumber(parts[3])) {
            return Optional.empty();
        }
        Optional<String> job = unescape(parts[0]);
        Optional<String> sink = unescape(parts[1]);
        if (job.isEmpty() || sink.isEmpty() || job.get().isEmpty() || sink.get().isEmpty()) {
            return Optional.empty();
        }
        try {
            TransactionId decoded = new TransactionId(job.get(), sink.get(), Integer.parseInt(parts[2]),
                    Long.parseLong(parts[3]));
            // Only the canonical spelling names it: "%41" or "007" would be a second text for one id.
            return decoded.encode().equals(id) ? Optional.of(decoded) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * An id of the encoding used before this one, {@code <job>-<sinkUid>-<subtask>-<checkpointId>},
     * decoded for the given job and sink, or empty if it is not exactly their prefix followed by
     * two numbers. Such an id is the same text for job {@code orders} with sink {@code eu-db} and
     * for job {@code orders-eu} with sink {@code db}; only ids prepared before the change have it.
     */
    public static Optional<TransactionId> parseLegacy(String id, String jobName, String sinkUid) {
        String prefix = jobName + "-" + sinkUid + "-";
        if (!id.startsWith(prefix)) {
            return Optional.empty();
        }
        String[] parts = id.substring(prefix.length()).split("-", -1);
        if (parts.length != 2 || !isNumber(parts[0]) || !isNumber(parts[1])) {
            return Optional.empty();
        }
        try {
            return Optional.of(new TransactionId(jobName, sinkUid, Integer.parseInt(parts[0]),
                    Long.parseLong(parts[1])));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** {@code name} with every character other than letters, digits, '.', '_' and '-' as %XX. */
    static String escape(String name) {
        StringBuilder out = new StringBuilder(name.length());
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (isPlain(c)) {
                out.append(c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
                        .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
            }
        }
        return out.toString();
    }

    private static Optional<String> unescape(String escaped) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(escaped.length());
        for (int i = 0; i < escaped.length(); i++) {
            char c = escaped.charAt(i);
            if (c == '%' && i + 2 < escaped.length()) {
                int high = Character.digit(escaped.charAt(i + 1), 16);
                int low = Character.digit(escaped.charAt(i + 2), 16);
                if (high < 0 || low < 0) {
                    return Optional.empty();
                }
                bytes.write(high << 4 | low);
                i += 2;
            } else if (isPlain(c)) {
                bytes.write(c);
            } else {
                return Optional.empty();
            }
        }
        return Optional.of(bytes.toString(StandardCharsets.UTF_8));
    }

    private static boolean isPlain(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
                || c == '-';
    }

    private static boolean isNumber(String s) {
        return !s.isEmpty() && s.length() <= 19 && s.chars().allMatch(c -> c >= '0' && c <= '9');
    }
}
