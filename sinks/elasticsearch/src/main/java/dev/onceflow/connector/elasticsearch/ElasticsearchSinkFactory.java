package dev.onceflow.connector.elasticsearch;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSink;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.record.EventSerializer;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowSerializer;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.Sink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * Makes the Elasticsearch sink usable from job files as {@code elasticsearch}, in either
 * {@linkplain ElasticsearchMode mode}. A job file's rows are the documents ({@link DocumentEncoder});
 * events from Java programs become the rows of {@link EventRows#SCHEMA} first, so both write the
 * same documents.
 */
public final class ElasticsearchSinkFactory implements SinkFactory {

    private static final String OWNER = "sink 'elasticsearch'";

    public static final Option<String> HOSTS = Option.stringOption("hosts").required()
            .validate(ElasticsearchSettings::isValidHostList, "comma-separated URLs such as http://127.0.0.1:9200")
            .description("HTTP endpoints of the cluster, comma-separated (http:// or https://, with port).");

    public static final Option<String> INDEX = Option.stringOption("index").required()
            .validate(ElasticsearchSinkFactory::isValidIndexPattern,
                    "a lower-case index name, optionally with {key} or a date pattern such as {yyyy.MM.dd}")
            .description("Target index. {key} is replaced by the text of the record's field 'key' in lower case; a "
                    + "date pattern such as {yyyy.MM.dd} by the checkpoint's time in UTC (write-ahead mode only).");

    public static final Option<ElasticsearchMode> MODE = Option.enumOption("mode", ElasticsearchMode.class)
            .defaultValue(ElasticsearchMode.IDEMPOTENT)
            .description("idempotent: bulk writes flushed at every barrier, replays rewrite the same documents "
                    + "(exactly-once final state); write-ahead: records kept in the checkpoint and indexed after it "
                    + "completes, with a marker per checkpoint in the committer index.");

    public static final Option<DocumentId> DOCUMENT_ID = Option.enumOption("document-id", DocumentId.class)
            .defaultValue(DocumentId.ID)
            .description("id: the input's primary key (fields joined with _, each escaped), or field 'id' of "
                    + "events: one document per key; key: field 'key', one document per key versioned by field "
                    + "'count', so older state never overwrites newer; auto: ids chosen by Elasticsearch, "
                    + "at-least-once, write-ahead mode only.");

    public static final Option<OpType> OP_TYPE = Option.enumOption("op-type", OpType.class)
            .defaultValue(OpType.INDEX)
            .description("With document-id: id. index overwrites; create never rewrites a document and counts a "
                    + "replay's 409 conflict as already written (insert-only streams).");

    public static final Option<Integer> BULK_MAX_ACTIONS = Option.intOption("bulk.max-actions").defaultValue(1000)
            .atLeast(1).description("Documents per bulk request.");

    public static final Option<Long> BULK_MAX_BYTES = Option.longOption("bulk.max-bytes").defaultValue(5L << 20)
            .atLeast(1024L).description("Approximate bytes per bulk request.");

    public static final Option<Integer> BULK_CONCURRENCY = Option.intOption("bulk.concurrency").defaultValue(2)
            .atLeast(1).description("Bulk requests in flight per subtask; the task waits when all are busy.");

    public static final Option<Duration> RETRY_MAX_DURATION = Option.durationOption("retry.max-duration")
            .defaultValue(Duration.ofSeconds(60))
            .description("How long a request is retried on 429, 5xx and connection errors before the job fails "
                    + "(and replays from its last checkpoint). Mapping errors (other 4xx) are never retried.");

    public static final Option<Duration> RETRY_INITIAL_BACKOFF = Option.durationOption("retry.initial-backoff")
            .defaultValue(Duration.ofMillis(100))
            .description("First wait between retries; it doubles up to 5 s.");

    public static final Option<Duration> REQUEST_TIMEOUT = Option.durationOption("request-timeout")
            .defaultValue(Duration.ofSeconds(30))
            .validate(d -> !d.isZero() && !d.isNegative(), "a positive duration such as 30s")
            .description("Connect and socket timeout of each request; a timed-out request is retried.");

    public static final Option<OnRejected> ON_REJECTED = Option.enumOption("on-rejected", OnRejected.class)
            .defaultValue(OnRejected.FAIL)
            .description("A document refused for its content (mapping error, invalid index name): fail the job "
                    + "naming the record id and the reason, or dead-letter: write it with the reason to "
                    + "dead-letter-index and go on. Never dropped.");

    public static final Option<String> DEAD_LETTER_INDEX = Option.stringOption("dead-letter-index")
            .defaultValue("onceflow-dead-letter").validate(ElasticsearchSinkFactory::isValidIndexName, "an index name")
            .description("Index of rejected documents under on-rejected: dead-letter.");

    public static final Option<String> COMMITTER_INDEX = Option.stringOption("committer-index")
            .defaultValue(ElasticsearchCheckpointCommitter.DEFAULT_INDEX)
            .validate(ElasticsearchSinkFactory::isValidIndexName, "an index name")
            .description("write-ahead mode: index of the markers of sent checkpoints, created if missing; may be "
                    + "shared by many jobs and sinks.");

    public static final Option<String> USERNAME = Option.stringOption("username")
            .description("User for basic authentication.");

    // Never echoed: these options have no validation, so no error message can repeat their values.
    public static final Option<String> PASSWORD = Option.stringOption("password")
            .description("Password for basic authentication; never logged.");

    public static final Option<String> API_KEY = Option.stringOption("api-key")
            .description("Encoded API key (sent as Authorization: ApiKey ...); never logged.");

    public static final Option<String> TLS_TRUSTSTORE = Option.stringOption("tls.truststore")
            .description("PKCS12 (or .jks) trust store for https hosts; the JDK's trusted CAs when unset.");

    public static final Option<String> TLS_TRUSTSTORE_PASSWORD = Option.stringOption("tls.truststore-password")
            .description("Password of the trust store; never logged.");

    public static final Option<Boolean> TLS_VERIFY_HOSTNAME = Option.booleanOption("tls.verify-hostname")
            .defaultValue(true).description("Whether the server certificate must match the host name.");

    static boolean isValidIndexPattern(String pattern) {
        try {
            IndexName.parse(pattern);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static boolean isValidIndexName(String name) {
        return isValidIndexPattern(name) && IndexName.parse(name).isConstant();
    }

    @Override
    public String identifier() {
        return "elasticsearch";
    }

    @Override
    public String description() {
        return "Writes each row as an Elasticsearch document (its fields as JSON) with bulk requests: idempotent "
                + "with ids from the primary key (default), or a write-ahead log with a checkpoint committer index.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(HOSTS, INDEX, MODE, DOCUMENT_ID, OP_TYPE, BULK_MAX_ACTIONS, BULK_MAX_BYTES, BULK_CONCURRENCY,
                RETRY_MAX_DURATION, RETRY_INITIAL_BACKOFF, REQUEST_TIMEOUT, ON_REJECTED, DEAD_LETTER_INDEX,
                COMMITTER_INDEX, USERNAME, PASSWORD, API_KEY, TLS_TRUSTSTORE, TLS_TRUSTSTORE_PASSWORD,
                TLS_VERIFY_HOSTNAME);
    }

    /** Every job file comes here: the rows are the documents, whatever their fields. */
    @Override
    public RowSink<Row> createRowSink(Context context) {
        Schema schema = context.inputSchema();
        return RowSink.ofRows(create(context.options(), schema, row -> row, RowSerializer.of(schema)));
    }

    /** Events, for Java programs and the Flink bridge: the documents of their rows. */
    @Override
    public Sink<Event> createSink(OptionValues options) {
        return create(options, EventRows.SCHEMA, EventRows::toRow, EventSerializer.INSTANCE);
    }

    private static <T> Sink<T> create(OptionValues options, Schema schema, Function<T, Row> toRow,
            SimpleVersionedSerializer<T> serializer) {
        ElasticsearchMode mode = options.get(MODE);
        IndexName index = IndexName.parse(options.get(INDEX));
        DocumentId documentId = options.get(DOCUMENT_ID);
        OpType opType = options.get(OP_TYPE);
        if (mode == ElasticsearchMode.IDEMPOTENT && documentId == DocumentId.AUTO) {
            throw new OptionException(OWNER + ": option 'document-id' is auto, which the idempotent mode cannot "
                    + "deduplicate (a replay would write every record again); use document-id: id or key, or "
                    + "mode: write-ahead");
        }
        if (mode == ElasticsearchMode.IDEMPOTENT && index.usesDate()) {
            throw new OptionException(OWNER + ": option 'index' (" + index + ") has a date placeholder, which "
                    + "needs mode: write-ahead (the date is the checkpoint's time, the same on replay); in the "
                    + "idempotent mode a replay on another day would write a second copy");
        }
        if (opType == OpType.CREATE && documentId != DocumentId.ID) {
            throw new OptionException(OWNER + ": option 'op-type' is create, which needs document-id: id (key "
                    + "documents are updated, auto ids never conflict)");
        }
        if (options.getOptional(API_KEY).isPresent() && options.getOptional(USERNAME).isPresent()) {
            throw new OptionException(OWNER + ": set either 'api-key' or 'username'/'password', not both");
        }
        if (options.getOptional(PASSWORD).isPresent() && options.getOptional(USERNAME).isEmpty()) {
            throw new OptionException(OWNER + ": option 'password' is set without 'username'");
        }
        ElasticsearchSettings settings = new ElasticsearchSettings(ElasticsearchSettings.parseHosts(options.get(HOSTS)),
                index, documentId, opType, options.get(BULK_MAX_ACTIONS), options.get(BULK_MAX_BYTES),
                options.get(BULK_CONCURRENCY), options.get(RETRY_MAX_DURATION), options.get(RETRY_INITIAL_BACKOFF),
                options.get(REQUEST_TIMEOUT), options.get(ON_REJECTED), options.get(DEAD_LETTER_INDEX),
                options.get(COMMITTER_INDEX),
                new ElasticsearchSettings.Credentials(options.getOptional(USERNAME), options.getOptional(PASSWORD),
                        options.getOptional(API_KEY)),
                new ElasticsearchSettings.Tls(options.getOptional(TLS_TRUSTSTORE).map(Path::of),
                        options.getOptional(TLS_TRUSTSTORE_PASSWORD), options.get(TLS_VERIFY_HOSTNAME)));
        InputRecords<T> input = new InputRecords<>(DocumentFields.of(schema, documentId, index), toRow, serializer);
        return mode == ElasticsearchMode.IDEMPOTENT ? new ElasticsearchIdempotentSink<>(settings, input)
                : new ElasticsearchWriteAheadSink<>(settings, input);
    }
}
