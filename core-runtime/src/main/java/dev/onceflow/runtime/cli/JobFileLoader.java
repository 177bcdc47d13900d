package dev.onceflow.runtime.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.onceflow.runtime.api.DataStream;
import dev.onceflow.runtime.api.DeadLetters;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.api.WatermarkStrategy;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.operator.ThrottleOperator;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.factory.RowSink;
import dev.onceflow.spi.factory.RowSource;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowSerializer;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.serialization.Serializers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Reads a job file, validates all of it (structure, connector names, every option) before anything
 * runs, and builds the job. Every problem is reported as one line naming the file, the place and
 * what is accepted.
 */
public final class JobFileLoader {

    /** The steps a job file can use between source and sink. */
    public static final List<String> STEP_TYPES = List.of("filter", "select", "aggregate", "count-by-key", "throttle");

    /** Option of the {@code throttle} step. */
    static final Option<Long> THROTTLE_RATE = Option.longOption("rows-per-second").required().atLeast(1L)
            .description("Records per second through all parallel subtasks together.");

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            // The last of two equal keys won, so a job ran with a setting its author saw overridden.
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            // parallelism: 1.5 became 1.
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);

    private final Connectors connectors;

    public JobFileLoader(Connectors connectors) {
        this.connectors = connectors;
    }

    /** A validated job file and the environment it declares. */
    public record LoadedJob(Path file, JobFile spec, StreamEnvironment environment, String description) {
    }

    /**
     * Reads a job file's structure: exactly one YAML document, every key once, every field of its
     * type, the required ones present and not empty. Nothing is checked against connectors here.
     */
    public static JobFile parse(Path file) throws JobFileException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new JobFileException(file + ": no such file");
        } catch (IOException e) {
            throw new JobFileException(file + ": cannot read: " + e.getMessage());
        }
        try (JsonParser parser = YAML.createParser(bytes)) {
            try {
                // Empty, only comments, or only '~' / '---': Jackson's words for it are about its internals.
                JobFile spec = parser.nextToken() == null ? null : YAML.readValue(parser, JobFile.class);
                if (spec == null) {
                    throw new JobFileException(file + ": the file is empty; expected a job with at least name, source"
                            + " and sink");
                }
                // Jackson reads the first document and stops: a second one after '---' was silently ignored.
                if (parser.nextToken() != null) {
                    throw new JobFileException(file + ":" + parser.currentTokenLocation().getLineNr()
                            + ": a second YAML document starts here; a job file holds exactly one (one job per file)");
                }
                requireJobName(file, spec.name());
                return spec;
            } catch (JsonProcessingException e) {
                throw new JobFileException(describe(file, e, parser));
            }
        } catch (IOException e) {
            throw new JobFileException(file + ": cannot read: " + e.getMessage());
        }
    }

    /**
     * Checked here, with the structure, so that no caller creates a directory for a name the file
     * system then refuses (a long one) or that is not a directory of its own ('..').
     */
    private static void requireJobName(Path file, String name) throws JobFileException {
        if (!StreamEnvironment.isValidJobName(name)) {
            String shown = name.length() <= StreamEnvironment.MAX_JOB_NAME_LENGTH ? "'" + name + "'"
                    : "'" + name.substring(0, 40) + "...' (" + name.length() + " characters)";
            throw new JobFileException(file + topLevelLine(file, "name") + ": name " + shown
                    + " is not a job name; expected " + StreamEnvironment.JOB_NAME_RULE
                    + " (it names the job's checkpoint directory)");
        }
    }

    /** A Jackson error in the words of the job file: the field, its line, what was found and what is accepted. */
    private static String describe(Path file, JsonProcessingException e, JsonParser parser) {
        if (e instanceof UnrecognizedPropertyException u) {
            String known = u.getKnownPropertyIds() == null ? "" : u.getKnownPropertyIds().stream().map(Object::toString)
                    .sorted().collect(Collectors.joining(", "));
            String parent = fieldPath(u.getPath().subList(0, Math.max(0, u.getPath().size() - 1)));
            return file + lineOf(file, u.getPropertyName(), u.getLocation()) + ": unknown field '" + u.getPropertyName()
                    + "'" + (parent.isEmpty() ? "" : " in '" + parent + "'") + "; known fields: " + known;
        }
        String field = e instanceof JsonMappingException m ? fieldPath(m.getPath()) : "";
        String subject = field.isEmpty() ? "the document" : "field '" + field + "'";
        JsonParseException duplicate = duplicateKey(e);
        if (duplicate != null) {
            String key = DUPLICATE.matcher(duplicate.getOriginalMessage()).replaceFirst("$1");
            return file + where(duplicate.getLocation()) + ": field '" + (field.isEmpty() ? "" : field + ".") + key
                    + "' is set a second time here; each field may be set once";
        }
        if (e instanceof InvalidNullException) {
            return file + where(e.getLocation()) + ": " + subject + " is empty; it is required";
        }
        // Jackson has no type of its own for an absent required field, only this message (a test
        // pins it). Its location is the end of the enclosing mapping, not a line to fix.
        if (e instanceof MismatchedInputException m && m.getOriginalMessage() != null
                && m.getOriginalMessage().startsWith("Missing required creator property")) {
            return file + ": " + subject + " is missing; it is required";
        }
        Class<?> target = e instanceof MismatchedInputException m ? m.getTargetType()
                : e.getCause() instanceof InputCoercionException c ? c.getTargetType() : null;
        if (target != null) {
            boolean isLong = target == Long.class || target == long.class;
            String range = !(e.getCause() instanceof InputCoercionException) ? ""
                    : " from " + (isLong ? Long.MIN_VALUE : Integer.MIN_VALUE) + " to " + (isLong ? Long.MAX_VALUE : Integer.MAX_VALUE);
            // A connector's options may hold a password: say what kind of value was found, not the value.
            boolean mayBeSecret = field.contains("options");
            return file + where(e.getLocation()) + ": " + subject + ": expected " + expected(target) + range + ", found "
                    + found(parser, mayBeSecret);
        }
        if (e instanceof JsonMappingException m) {
            return file + where(e.getLocation()) + ": " + subject + " is invalid: " + firstLine(m.getOriginalMessage());
        }
        return file + where(e.getLocation()) + ": not valid YAML: " + firstLine(e.getOriginalMessage());
    }

    private static final java.util.regex.Pattern DUPLICATE = java.util.regex.Pattern.compile("Duplicate field '(.*)'");

    /** The parser's duplicate-key error, thrown as it is at the top level and wrapped with a path below it. */
    private static JsonParseException duplicateKey(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof JsonParseException p && p.getOriginalMessage() != null
                    && DUPLICATE.matcher(p.getOriginalMessage()).matches()) {
                return p;
            }
        }
        return null;
    }

    /** What a field of type {@code target} accepts, in the job file's words. */
    private static String expected(Class<?> target) {
        if (target == Integer.class || target == int.class || target == Long.class || target == long.class) {
            return "a whole number";
        }
        if (target == Boolean.class || target == boolean.class) {
            return "true or false";
        }
        if (target == String.class) {
            return "text";
        }
        if (target == JobFile.class) {
            return "a mapping of the job's fields (name, source, sink, ...)";
        }
        if (target == JobFile.Connector.class) {
            return "a mapping such as {type: <connector>, options: {...}}";
        }
        if (target == JobFile.Step.class) {
            return "a mapping such as {type: count-by-key}";
        }
        if (java.util.Collection.class.isAssignableFrom(target)) {
            return "a list";
        }
        if (Map.class.isAssignableFrom(target)) {
            return "a mapping of names to values";
        }
        return "a mapping of its fields";
    }

    /** The value the parser stopped at: its text for a scalar, its kind for anything else. */
    private static String found(JsonParser parser, boolean hideText) {
        JsonToken token = parser.currentToken();
        if (token == null || token == JsonToken.VALUE_NULL) {
            return "nothing";
        }
        if (token == JsonToken.START_ARRAY) {
            return "a list";
        }
        if (token == JsonToken.START_OBJECT) {
            return "a mapping";
        }
        try {
            String text = parser.getText();
            if (text == null || text.isEmpty()) {
                return "an empty value";
            }
            return hideText ? (token.isNumeric() ? "a number" : "text") : "'" + text + "'";
        } catch (IOException e) {
            return "another kind of value";
        }
    }

    /** Parses and validates a job file and builds its job. */
    public LoadedJob load(Path file) throws JobFileException {
        JobFile spec = parse(file);
        String where = file.toString();
        StreamEnvironment env = StreamEnvironment.create();
        try {
            if (spec.parallelism() != null) {
                env.setParallelism(spec.parallelism());
            }
            if (spec.maxParallelism() != null) {
                env.setMaxParallelism(spec.maxParallelism());
            }
            env.setCheckpointConfig(checkpointConfig(spec.checkpoints(), where));
            env.setRestartStrategy(RuntimeSettings.restart(spec.restart(), where).toStrategy());
            if (spec.stateBackend() != null) {
                env.setStateBackend(dev.onceflow.runtime.state.StateBackend.named(spec.stateBackend()));
            }
        } catch (IllegalArgumentException e) {
            throw new JobFileException(where + ": " + e.getMessage());
        }

        SourceFactory sourceFactory;
        SinkFactory sinkFactory;
        try {
            sourceFactory = connectors.source(spec.source().type());
            sinkFactory = connectors.sink(spec.sink().type());
        } catch (JobFileException e) {
            throw new JobFileException(where + ": " + e.getMessage());
        }
        String sourceOwner = "source '" + sourceFactory.identifier() + "'";
        // before the options: a source may accept options named after the declared fields
        Optional<Schema> declared = schema(spec.source().schema(), where, sourceOwner);
        OptionValues sourceOptions = connectorOptions(where + ": " + sourceOwner, spec.source(),
                declared.isPresent() ? sourceFactory.options(declared.get()) : sourceFactory.options());
        OptionValues sinkOptions = connectorOptions(where + ": sink '" + sinkFactory.identifier() + "'", spec.sink(),
                sinkFactory.options());

        StringBuilder description = new StringBuilder();
        try {
            Optional<Format> sourceFormat = format(spec.source().format(), sourceFactory.defaultFormat(), where,
                    sourceOwner);
            String sourceUid = spec.source().uid() != null ? spec.source().uid() : "source";
            RowSource<?> source = sourceFactory.createRowSource(new SourceFactory.Context() {
                @Override
                public OptionValues options() {
                    return sourceOptions;
                }

                @Override
                public String jobName() {
                    return spec.name();
                }

                @Override
                public String sourceUid() {
                    return sourceUid;
                }

                @Override
                public Optional<Schema> declaredSchema() {
                    return declared;
                }

                @Override
                public Optional<Format> format() {
                    return sourceFormat;
                }

                @Override
                public Format format(String identifier, Map<String, String> options, String owner) {
                    return connectors.format(identifier, options, owner);
                }
            });
            Schema schema = source.schema();
            EventTimeField eventTime = spec.source().eventTime() == null ? null
                    : EventTimeField.of(spec.source().eventTime(), schema, sourceOwner);
            DataStream<Row> stream = rows(env, source, eventTime, sourceFactory.identifier(), sourceUid,
                    spec.source().parallelism(), deadLetters(spec.source(), sourceUid, where));
            description.append(sourceFactory.identifier());
            // whether rows can be other than inserts (CHG-3): a changelog source's are, and so are
            // those of a changelog format (FMT-8); an aggregate over changes emits them
            boolean changelog = sourceFactory.yieldsChanges(sourceOptions)
                    || sourceFormat.map(Format::producesChanges).orElse(false);
            List<JobFile.Step> steps = spec.steps() == null ? List.of() : spec.steps();
            for (int i = 0; i < steps.size(); i++) {
                JobFile.Step step = steps.get(i);
                if (!STEP_TYPES.contains(step.type())) {
                    throw new JobFileException(where + ": steps[" + i + "] has unknown type '" + step.type()
                            + "'; known: " + String.join(", ", STEP_TYPES));
                }
                String owner = where + ": steps[" + i + "] '" + step.type() + "'";
                if (step.type().equals("filter")) {
                    stream = stream.filter(FilterStep.of(schema,
                            OptionValues.validate(owner, raw(step.options()), FilterStep.OPTIONS), owner));
                } else if (step.type().equals("select")) {
                    SelectStep select = SelectStep.of(schema, raw(step.options()), owner);
                    if (changelog && select.output().primaryKey().isEmpty()) {
                        throw new JobFileException(owner + " drops the primary key (" + String.join(", ",
                                schema.primaryKey()) + ") of a changelog, whose updates and deletes name rows by it; "
                                + "keep the key's fields");
                    }
                    stream = stream.map(select);
                    schema = select.output();
                } else if (step.type().equals("aggregate")) {
                    AggregateStep.Plan aggregate = AggregateStep.Plan.of(schema, raw(step.options()),
                            eventTime != null, changelog, owner);
                    changelog = aggregate.emitsChanges();
                    stream = stream.keyBy(aggregate::keyOf, Serializers.STRING).process(aggregate::function);
                    schema = aggregate.output();
                } else if (step.type().equals("throttle")) {
                    long rate = OptionValues.validate(owner, raw(step.options()), List.of(THROTTLE_RATE)).get(THROTTLE_RATE);
                    stream = stream.<Row>transform("throttle", () -> new ThrottleOperator<>(rate));
                } else {
                    if (changelog) {
                        throw new JobFileException(owner + " counts every row, and its input is a changelog with "
                                + "updates and deletes; use an aggregate step with count(), which takes them back");
                    }
                    CountByKey.Fields fields = CountByKey.Fields.of(schema,
                            OptionValues.validate(owner, raw(step.options()), CountByKey.OPTIONS), owner);
                    stream = stream.keyBy(fields::keyOf, Serializers.STRING).process(fields::function);
                    schema = fields.output();
                }
                stream.uid(step.uid() != null ? step.uid() : step.type() + "-" + i)
                        .recordSerializer(RowSerializer.of(schema));
                if (step.parallelism() != null) {
                    stream.parallelism(step.parallelism());
                }
                description.append(" -> ").append(step.type());
            }
            String sinkOwner = "sink '" + sinkFactory.identifier() + "'";
            if (spec.sink().onError() != null || spec.sink().deadLetter() != null) {
                throw new JobFileException(where + ": " + sinkOwner + " takes no on-error or dead-letter; they are the"
                        + " source's, for records it cannot read");
            }
            if (spec.sink().schema() != null) {
                throw new JobFileException(where + ": " + sinkOwner + " takes the schema of its input; remove its schema:");
            }
            if (spec.sink().eventTime() != null) {
                throw new JobFileException(where + ": " + sinkOwner + " has no event-time; declare it on the source");
            }
            if (changelog && !sinkFactory.acceptsChanges(sinkOptions)) {
                throw new JobFileException(where + ": " + sinkOwner + " appends rows, and its input is a changelog "
                        + "with updates and deletes; use a sink that writes by primary key (jdbc or kafka with "
                        + "write-mode: upsert)");
            }
            Optional<Format> sinkFormat = format(spec.sink().format(), sinkFactory.defaultFormat(), where, sinkOwner);
            Schema input = schema;
            RowSink<?> sink = sinkFactory.createRowSink(new SinkFactory.Context() {
                @Override
                public OptionValues options() {
                    return sinkOptions;
                }

                @Override
                public Schema inputSchema() {
                    return input;
                }

                @Override
                public Optional<Format> format() {
                    return sinkFormat;
                }
            });
            sinkTo(stream, sink, spec.sink().uid() != null ? spec.sink().uid() : "sink", spec.sink().parallelism());
            description.append(" -> ").append(sinkFactory.identifier());
            env.plan(); // validates uids and parallelism now, not when the job starts
        } catch (OptionException e) {
            // options name the file themselves; what a factory finds (a field, a format) does not
            throw new JobFileException(e.getMessage().startsWith(where) ? e.getMessage() : where + ": " + e.getMessage());
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new JobFileException(e.getMessage().startsWith(where) ? e.getMessage() : where + ": " + e.getMessage());
        }
        return new LoadedJob(file, spec, env, description.toString());
    }

    /**
     * The source's records as rows: the source itself when it yields rows, else the source and,
     * chained into its task (same parallelism, forward), the conversion of each record. With
     * {@code eventTime}, the source stamps each record with its row's time and emits watermarks
     * (the assigner converts a record that is not a row once more: the map after it cannot stamp).
     */
    @SuppressWarnings("unchecked")
    private static <T> DataStream<Row> rows(StreamEnvironment env, RowSource<T> source, EventTimeField eventTime,
            String name, String uid, Integer parallelism, Optional<DeadLetterSink> deadLetters) {
        Function<T, Row> toRow = source.yieldsRows() ? record -> (Row) record : source.toRow();
        WatermarkStrategy<T> watermarks = eventTime == null ? WatermarkStrategy.noWatermarks() : eventTime.strategy(toRow);
        DataStream<T> records = env.fromSource(source.source(), watermarks, name).uid(uid)
                .recordSerializer(source.recordSerializer());
        if (parallelism != null) {
            records.parallelism(parallelism);
        }
        deadLetters.ifPresent(d -> records.deadLettersTo(d.sink(), d.uid()));
        if (source.yieldsRows()) {
            return (DataStream<Row>) records;
        }
        DataStream<Row> rows = records.map(toRow::apply).uid(uid + "-rows").recordSerializer(RowSerializer.of(source.schema()));
        if (parallelism != null) {
            rows.parallelism(parallelism);
        }
        return rows;
    }

    /** A source's dead-letter sink and its uid. */
    private record DeadLetterSink(dev.onceflow.spi.sink.Sink<Row> sink, String uid) {
    }

    /**
     * The sink the source's unreadable records go to, if its {@code on-error} is {@code dead-letter}
     * (rule SRC-6): any sink, given {@link DeadLetters#SCHEMA} rows, in json where it takes a format
     * and the job file names none.
     */
    @SuppressWarnings("unchecked")
    private Optional<DeadLetterSink> deadLetters(JobFile.Connector source, String sourceUid, String where)
            throws JobFileException {
        String onError = source.onError() == null ? "fail" : source.onError();
        JobFile.Connector spec = source.deadLetter();
        if (!onError.equals("fail") && !onError.equals("dead-letter")) {
            throw new JobFileException(where + ": source on-error is '" + onError + "'; it is fail (the default: the "
                    + "job stops at a record it cannot read) or dead-letter");
        }
        if (onError.equals("fail")) {
            if (spec != null) {
                throw new JobFileException(where + ": source has a dead-letter sink but on-error is fail; set on-error:"
                        + " dead-letter, or remove dead-letter:");
            }
            return Optional.empty();
        }
        if (spec == null) {
            throw new JobFileException(where + ": source on-error: dead-letter needs a dead-letter: sink, such as "
                    + "{type: filesystem, options: {path: dead-letters}}");
        }
        SinkFactory factory;
        try {
            factory = connectors.sink(spec.type());
        } catch (JobFileException e) {
            throw new JobFileException(where + ": source dead-letter: " + e.getMessage());
        }
        String owner = "source dead-letter sink '" + factory.identifier() + "'";
        if (spec.schema() != null || spec.parallelism() != null || spec.onError() != null
                || spec.deadLetter() != null || spec.eventTime() != null) {
            throw new JobFileException(where + ": " + owner + " takes only type, uid, options and format; its rows are"
                    + " source, position, reason and record, and it runs in the source's subtasks");
        }
        OptionValues options = connectorOptions(where + ": " + owner, spec, factory.options());
        Optional<Format> format = factory.defaultFormat().isEmpty() || spec.format() != null
                ? format(spec.format(), factory.defaultFormat(), where, owner)
                : format(new JobFile.Format("json", null), factory.defaultFormat(), where, owner);
        RowSink<?> sink = factory.createRowSink(new SinkFactory.Context() {
            @Override
            public OptionValues options() {
                return options;
            }

            @Override
            public Schema inputSchema() {
                return DeadLetters.SCHEMA;
            }

            @Override
            public Optional<Format> format() {
                return format;
            }
        });
        if (!sink.writesRows()) {
            throw new JobFileException(where + ": " + owner + " cannot write dead-letter rows; use a sink that writes "
                    + "rows, such as filesystem or kafka");
        }
        String uid = spec.uid() != null ? spec.uid() : sourceUid + "-dead-letters";
        return Optional.of(new DeadLetterSink((dev.onceflow.spi.sink.Sink<Row>) sink.sink(), uid));
    }

    /** The sink, behind the conversion of each row to its record when it does not write rows itself. */
    @SuppressWarnings("unchecked")
    private static <T> void sinkTo(DataStream<Row> stream, RowSink<T> sink, String uid, Integer parallelism) {
        DataStream<T> records;
        if (sink.writesRows()) {
            records = (DataStream<T>) stream;
        } else {
            Function<Row, T> fromRow = sink.fromRow();
            records = stream.map(fromRow::apply).uid(uid + "-rows");
            if (parallelism != null) {
                records.parallelism(parallelism);
            }
        }
        DataStream.SinkStream sinkStream = records.sinkTo(sink.sink()).uid(uid);
        if (parallelism != null) {
            sinkStream.parallelism(parallelism);
        }
    }

    private static OptionValues connectorOptions(String owner, JobFile.Connector connector, List<Option<?>> declared)
            throws JobFileException {
        try {
            return OptionValues.validate(owner, raw(connector.options()), declared);
        } catch (OptionException e) {
            throw new JobFileException(e.getMessage());
        }
    }

    /**
     * The format of a connector: the job file's, or the connector's default; empty if the connector
     * takes none. Its options are validated here.
     */
    private Optional<Format> format(JobFile.Format spec, Optional<String> defaultFormat, String where, String owner)
            throws JobFileException {
        if (defaultFormat.isEmpty()) {
            if (spec != null) {
                throw new JobFileException(where + ": " + owner + " takes no format; remove its format:");
            }
            return Optional.empty();
        }
        String name = spec == null ? defaultFormat.get() : spec.type();
        FormatFactory factory;
        try {
            factory = connectors.format(name);
        } catch (JobFileException e) {
            throw new JobFileException(where + ": " + owner + ": " + e.getMessage());
        }
        OptionValues options = OptionValues.validate(where + ": " + owner + " format '" + name + "'",
                raw(spec == null ? null : spec.options()), factory.options());
        return Optional.of(new Format(factory, options));
    }

    /** The schema a job file declares for a connector, each field's type parsed. */
    private static Optional<Schema> schema(JobFile.SchemaSpec spec, String where, String owner) throws JobFileException {
        if (spec == null) {
            return Optional.empty();
        }
        if (spec.fields() == null || spec.fields().isEmpty()) {
            throw new JobFileException(where + ": " + owner + " schema has no fields; list them under schema: fields:"
                    + " as name: type");
        }
        List<Field> fields = new ArrayList<>();
        for (Map.Entry<String, String> field : spec.fields().entrySet()) {
            try {
                fields.add(Field.of(field.getKey(), DataType.parse(field.getValue())));
            } catch (IllegalArgumentException e) {
                throw new JobFileException(where + ": " + owner + " schema field '" + field.getKey() + "': "
                        + e.getMessage());
            }
        }
        try {
            return Optional.of(Schema.of(fields, spec.primaryKey() == null ? List.of() : spec.primaryKey()));
        } catch (IllegalArgumentException e) {
            throw new JobFileException(where + ": " + owner + " schema: " + e.getMessage());
        }
    }

    /** The checkpoint settings of a job file over the defaults; see {@link RuntimeSettings#checkpoints}. */
    public static CheckpointConfig checkpointConfig(Map<String, Object> checkpoints, String where)
            throws JobFileException {
        return RuntimeSettings.checkpoints(checkpoints, where);
    }

    private static Map<String, String> raw(Map<String, Object> options) {
        Map<String, String> raw = new LinkedHashMap<>();
        if (options != null) {
            options.forEach((k, v) -> raw.put(k, v == null ? "" : v.toString()));
        }
        return raw;
    }

    /**
     * The line of a field name. Jackson reports unknown fields of records where it stopped reading
     * (it buffers creator properties), so the line is looked up in the text.
     */
    private static String lineOf(Path file, String field, JsonLocation fallback) {
        try {
            List<String> lines = Files.readAllLines(file);
            java.util.regex.Pattern key = java.util.regex.Pattern.compile("^[\\s-]*['\"]?"
                    + java.util.regex.Pattern.quote(field) + "['\"]?\\s*:");
            for (int i = 0; i < lines.size(); i++) {
                if (key.matcher(lines.get(i)).find()) {
                    return ":" + (i + 1);
                }
            }
        } catch (IOException e) {
            // fall back to Jackson's location
        }
        return where(fallback);
    }

    /** The line of a top-level field ({@code name:} at the start of a line), or nothing if it cannot be read. */
    private static String topLevelLine(Path file, String field) {
        try {
            List<String> lines = Files.readAllLines(file);
            java.util.regex.Pattern key = java.util.regex.Pattern.compile("^['\"]?"
                    + java.util.regex.Pattern.quote(field) + "['\"]?\\s*:");
            for (int i = 0; i < lines.size(); i++) {
                if (key.matcher(lines.get(i)).find()) {
                    return ":" + (i + 1);
                }
            }
        } catch (IOException e) {
            // the message goes without a line
        }
        return "";
    }

    private static String where(JsonLocation location) {
        return location == null || location.getLineNr() < 0 ? "" : ":" + location.getLineNr();
    }

    /** A field as a job file spells it: {@code checkpoints.interval}, {@code steps[1].type}. */
    private static String fieldPath(List<JsonMappingException.Reference> path) {
        StringBuilder p = new StringBuilder();
        for (JsonMappingException.Reference r : path) {
            if (r.getFieldName() != null) {
                p.append(p.length() == 0 ? "" : ".").append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                p.append('[').append(r.getIndex()).append(']');
            }
        }
        return p.toString();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "is invalid";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
