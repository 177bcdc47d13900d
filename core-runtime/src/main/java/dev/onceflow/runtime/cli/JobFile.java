package dev.onceflow.runtime.cli;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A declarative job as written in YAML. Field names are kebab-case; unknown fields are errors.
 * Required fields must not be empty ({@code name: ~} or a bare {@code source:}): {@link Nulls#FAIL}
 * turns that into an error with its line, where a null used to reach the loader as an NPE.
 *
 * <pre>
 * name: keyed-count
 * parallelism: 2
 * source: {type: datagen, options: {rows: 100000, keys: 10}}
 * steps: [{type: count-by-key}]
 * sink: {type: filesystem, options: {path: onceflow-data/output}}
 * checkpoints: {interval: 1s, mode: exactly-once, dir: onceflow-data/checkpoints}
 * restart: {strategy: fixed-delay, attempts: 3, delay: 1s}
 * state-backend: rocksdb          # default heap; rocksdb needs the onceflow-state-rocksdb jar
 * </pre>
 */
public record JobFile(
        @JsonProperty(value = "name", required = true) @JsonSetter(nulls = Nulls.FAIL) String name,
        @JsonProperty("parallelism") Integer parallelism,
        @JsonProperty("max-parallelism") Integer maxParallelism,
        @JsonProperty(value = "source", required = true) @JsonSetter(nulls = Nulls.FAIL) Connector source,
        @JsonProperty("steps") @JsonSetter(contentNulls = Nulls.FAIL) List<Step> steps,
        @JsonProperty(value = "sink", required = true) @JsonSetter(nulls = Nulls.FAIL) Connector sink,
        @JsonProperty("checkpoints") Map<String, Object> checkpoints,
        @JsonProperty("restart") Map<String, Object> restart,
        @JsonProperty("state-backend") String stateBackend) {

    /**
     * A source or sink, named by its factory identifier. {@code format} names how it decodes or
     * encodes records, for connectors that take one; {@code schema} declares the fields of a
     * source's records where its format does not fix them; {@code event-time} makes a source's
     * rows carry the time of one of their fields, and its watermarks follow it. A source's
     * {@code on-error} says what a record its reader cannot read does: {@code fail} the job (the
     * default) or go to the {@code dead-letter} sink.
     */
    public record Connector(
            @JsonProperty(value = "type", required = true) @JsonSetter(nulls = Nulls.FAIL) String type,
            @JsonProperty("uid") String uid,
            @JsonProperty("parallelism") Integer parallelism,
            @JsonProperty("options") Map<String, Object> options,
            @JsonProperty("format") Format format,
            @JsonProperty("schema") SchemaSpec schema,
            @JsonProperty("event-time") EventTime eventTime,
            @JsonProperty("on-error") String onError,
            @JsonProperty("dead-letter") Connector deadLetter) {
    }

    /**
     * The event time of a source's rows: the field that holds it, how far behind the latest time
     * seen a row may arrive and still be on time, and after how long without rows a source subtask
     * stops holding back event time (never if absent). Durations as elsewhere: {@code 500ms},
     * {@code 5s}, {@code 1m}.
     *
     * <pre>
     * event-time:
     *   field: placed_at
     *   max-out-of-orderness: 5s
     *   idleness: 1m
     * </pre>
     */
    public record EventTime(
            @JsonProperty(value = "field", required = true) @JsonSetter(nulls = Nulls.FAIL) String field,
            @JsonProperty(value = "max-out-of-orderness", required = true) @JsonSetter(nulls = Nulls.FAIL)
            String maxOutOfOrderness,
            @JsonProperty("idleness") String idleness) {
    }

    /** {@code format: json}, or {@code format: {type: csv, options: {delimiter: ";"}}}. */
    public record Format(
            @JsonProperty(value = "type", required = true) @JsonSetter(nulls = Nulls.FAIL) String type,
            @JsonProperty("options") Map<String, Object> options) {

        /** The short form, a format's name alone. */
        @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
        public static Format named(String type) {
            return new Format(type, null);
        }
    }

    /**
     * The fields of records, in order, each with its type in the syntax of
     * {@link dev.onceflow.spi.row.DataType#parse}, and the fields that identify a record.
     *
     * <pre>
     * schema:
     *   fields:
     *     order_id: long not null
     *     amount: decimal(10, 2)
     *   primary-key: [order_id]
     * </pre>
     */
    public record SchemaSpec(
            @JsonProperty(value = "fields", required = true) @JsonSetter(nulls = Nulls.FAIL)
            LinkedHashMap<String, String> fields,
            @JsonProperty("primary-key") List<String> primaryKey) {
    }

    /** A processing step between source and sink. */
    public record Step(
            @JsonProperty(value = "type", required = true) @JsonSetter(nulls = Nulls.FAIL) String type,
            @JsonProperty("uid") String uid,
            @JsonProperty("parallelism") Integer parallelism,
            @JsonProperty("options") Map<String, Object> options) {
    }
}
