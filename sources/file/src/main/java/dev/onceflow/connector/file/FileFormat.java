package dev.onceflow.connector.file;

import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.nio.charset.StandardCharsets;

/** How a line of an input file becomes an {@link Event}. */
public enum FileFormat implements LineDecoding<Event> {

    /**
     * Each line is an event written by {@link EventFormat#toLine} (for example by the filesystem
     * sink). A line break inside a quoted field belongs to the event, not ends it.
     */
    EVENTS {
        @Override
        Event toEvent(String fileName, long offset, String line) {
            return EventFormat.parse(line);
        }

        @Override
        public boolean quotedFields() {
            return true;
        }
    },

    /**
     * Each line is free text: {@code Event(id = "<file name>:<byte offset>", key = line,
     * payload = line, count = 0)}. The id is stable across replays because offsets are.
     */
    LINES {
        @Override
        Event toEvent(String fileName, long offset, String line) {
            return new Event(fileName + ":" + offset, line, line, 0);
        }

        @Override
        public boolean quotedFields() {
            return false;
        }
    };

    /**
     * Converts one line (without its terminator).
     *
     * @throws IllegalArgumentException if the line is not in this format
     */
    abstract Event toEvent(String fileName, long offset, String line);

    /** Whether line breaks inside double-quoted fields are part of the line. */
    @Override
    public abstract boolean quotedFields();

    @Override
    public Parser<Event> newParser() {
        return (fileName, offset, line) -> {
            try {
                // UTF-8 with malformed bytes replaced, as event lines were always read
                return toEvent(fileName, offset, new String(line, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                throw new MalformedRecordException(e.getMessage());
            }
        };
    }
}
