package dev.onceflow.spi.format;

/**
 * Where a format's records may hold line breaks ({@code \n}, {@code \r}), which decides how
 * line-delimited files hold them: a file source splits a file into records at line breaks, and a
 * file sink ends each record with one.
 */
public enum LineBreaks {

    /** Never: one record per line, split at every line break (json). */
    NEVER,

    /**
     * Only inside double-quoted fields, as RFC 4180 allows: a record ends at a line break outside
     * quotes, where a quote opens a field only at the field's start and {@code ""} inside one is a
     * quote (csv, event).
     */
    QUOTED,

    /**
     * Anywhere, unmarked (raw): a file holds one record per line only as long as no record holds a
     * line break. A file sink fails the job on a record that does, naming the format, rather than
     * write a record that would read back as two.
     */
    ANYWHERE
}
