package dev.onceflow.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.onceflow.connector.datagen.DatagenSourceFactory;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.config.CheckpointingMode;
import dev.onceflow.spi.factory.Option;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A wrong job file is an error before anything runs, reported as one line that names the file,
 * the place and what is accepted.
 */
class JobFileLoaderTest {

    @TempDir
    Path dir;

    JobFileLoader loader;

    @BeforeEach
    void setUp() throws Exception {
        loader = new JobFileLoader(Connectors.discover(null));
    }

    /** Loads {@code content} expecting an error; checks the rules every error message follows. */
    private String errorFor(String content) throws Exception {
        Path file = JobFiles.write(dir, "job.yaml", content);
        JobFileException e = catchThrowableOfType(JobFileException.class, () -> loader.load(file));
        assertThat(e).as("the job file must be rejected").isNotNull();
        assertThat(e.getMessage()).as("one line").doesNotContain("\n").doesNotContain("\r");
        assertThat(e.getMessage()).as("names the file").startsWith(file.toString());
        assertThat(e.getMessage()).as("in the job file's words, not Jackson's")
                .doesNotContain("JsonToken", "creator property", "end-of-input", "com.fasterxml", "`", "CoercionConfig");
        return e.getMessage();
    }

    private static final String SOURCE = "source:\n  type: datagen\n  options:\n    rows: 100\n    keys: 3\n";

    @Test
    void aValidFileLoadsWithItsSettings() throws Exception {
        Path file = JobFiles.write(dir, "job.yaml", JobFiles.valid(dir));

        JobFileLoader.LoadedJob job = loader.load(file);

        assertThat(job.description()).isEqualTo("datagen -> count-by-key -> filesystem");
        assertThat(job.spec().name()).isEqualTo("good-job");
        assertThat(job.environment().checkpointConfig().interval()).isEqualTo(Duration.ofMillis(100));
        assertThat(job.environment().checkpointConfig().mode()).isEqualTo(CheckpointingMode.EXACTLY_ONCE);
        assertThat(job.environment().checkpointConfig().directory()).isEqualTo(CheckpointLocation.of(dir.resolve("checkpoints")));
        // datagen and the filesystem sink make and write rows themselves: no conversion step
        assertThat(job.environment().plan().uids()).containsExactlyInAnyOrder("source", "count", "sink");
        assertThat(job.environment().plan().stages()).extracting(s -> s.parallelism()).containsExactly(2, 2);
    }

    @Test
    void aSourceThatMakesItsOwnRowsRefusesAFormatAndSettingsOfFieldsItsSchemaDoesNotHave() throws Exception {
        assertThat(errorFor(JobFiles.validWith(dir, "  type: datagen\n", "  type: datagen\n  format: json\n")))
                .endsWith(": source 'datagen' takes no format; remove its format:");
        // datagen makes rows of a declared schema, with options named after its fields
        assertThat(errorFor(JobFiles.validWith(dir, "  type: datagen\n", "  type: datagen\n  schema: {fields: {id: string}}\n")))
                .contains(": source 'datagen': unknown option 'keys'; accepted options: rows, rows-per-second, splits, "
                        + "split-assignment, seed, fields.id.kind, ");
        assertThat(errorFor(JobFiles.validWith(dir, "    keys: 3\n",
                "    fields.idd.kind: sequence\n  schema: {fields: {id: long}}\n")))
                .contains(": source 'datagen': unknown option 'fields.idd.kind'; accepted options: ");
    }

    @Test
    void aFormatIsFoundByNameAndItsOptionsAreChecked() throws Exception {
        assertThat(errorFor(JobFiles.validWith(dir, "  type: filesystem\n", "  type: filesystem\n  format: yaml\n")))
                .contains(": sink 'filesystem': no format 'yaml' on the classpath; available: event, json");
        assertThat(errorFor(JobFiles.validWith(dir, "  type: filesystem\n",
                "  type: filesystem\n  format: {type: event, options: {quote: x}}\n")))
                .contains(": sink 'filesystem' format 'event': unknown option 'quote'");
    }

    @Test
    void aSchemaFieldOfAnUnknownTypeIsNamedWithThePositionInItsType() throws Exception {
        assertThat(errorFor(JobFiles.validWith(dir, "  type: datagen\n",
                "  type: datagen\n  schema: {fields: {id: 'decimal(12'}}\n")))
                .endsWith(": source 'datagen' schema field 'id': type 'decimal(12': expected ',' at position 11");
    }

    @Test
    void aSinkTakesTheSchemaOfItsInput() throws Exception {
        assertThat(errorFor(JobFiles.validWith(dir, "  type: filesystem\n",
                "  type: filesystem\n  schema: {fields: {id: string}}\n")))
                .endsWith(": sink 'filesystem' takes the schema of its input; remove its schema:");
    }

    @Test
    void aDeadLetterSinkRunsInTheSourcesTaskUnderItsOwnUidAndTakesJsonByDefault() throws Exception {
        Path file = JobFiles.write(dir, "job.yaml", JobFiles.validWith(dir, "    keys: 3\n", "    keys: 3\n"
                + "  on-error: dead-letter\n  dead-letter: {type: filesystem, options: {path: " + dir.resolve("dl") + "}}\n"));

        JobFileLoader.LoadedJob job = loader.load(file);

        assertThat(job.environment().plan().uids()).containsExactlyInAnyOrder("source", "source-dead-letters", "count",
                "sink");
        assertThat(job.environment().plan().stages().get(0).chain().get(0).deadLetters().uid())
                .isEqualTo("source-dead-letters");
        // the dead-letter rows (bytes among them) do not fit the event lines the sink writes by default
        assertThat(errorFor(JobFiles.validWith(dir, "    keys: 3\n", "    keys: 3\n  on-error: dead-letter\n"
                + "  dead-letter: {type: filesystem, format: event, options: {path: " + dir.resolve("dl") + "}}\n")))
                .contains(": sink 'filesystem': format 'event': the schema must be row<id string not null,");
    }

    @Test
    void aDeadLetterSettingThatDoesNotFitIsRefusedInOneLine() throws Exception {
        String path = "options: {path: " + dir.resolve("dl") + "}";
        assertThat(errorFor(JobFiles.validWith(dir, "    keys: 3\n", "    keys: 3\n  on-error: skip\n")))
                .endsWith(": source on-error is 'skip'; it is fail (the default: the job stops at a record it cannot "
                        + "read) or dead-letter");
        assertThat(errorFor(JobFiles.validWith(dir, "    keys: 3\n", "    keys: 3\n  on-error: dead-letter\n")))
                .endsWith(": source on-error: dead-letter needs a dead-letter: sink, such as {type: filesystem, "
                        + "options: {path: dead-letters}}");
        assertThat(errorFor(JobFiles.validWith(dir, "    keys: 3\n", "    keys: 3\n  dead-letter: {type: filesystem, "
                + path + "}\n")))
                .endsWith(": source has a dead-letter sink but on-error is fail; set on-error: dead-letter, or remove "
                        + "dead-letter:");
        assertThat(errorFor(JobFiles.validWith(dir, "    keys: 3\n", "    keys: 3\n  on-error: dead-letter\n"
                + "  dead-letter: {type: filesystem, parallelism: 3, " + path + "}\n")))
                .endsWith(": source dead-letter sink 'filesystem' takes only type, uid, options and format; its rows are"
                        + " source, position, reason and record, and it runs in the source's subtasks");
        assertThat(errorFor(JobFiles.validWith(dir, "    keys: 3\n", "    keys: 3\n  on-error: dead-letter\n"
                + "  dead-letter: {type: nowhere}\n")))
                .contains(": source dead-letter: no sink connector 'nowhere' on the classpath");
        assertThat(errorFor(JobFiles.validWith(dir, "    keys: 3\n", "    keys: 3\n  on-error: dead-letter\n"
                + "  dead-letter: {type: filesystem, uid: count, " + path + "}\n")))
                .endsWith(": uid 'count' is used twice; uids must be unique in a job");
        assertThat(errorFor(JobFiles.validWith(dir, "  type: filesystem\n", "  type: filesystem\n  on-error: fail\n")))
                .endsWith(": sink 'filesystem' takes no on-error or dead-letter; they are the source's, for records it "
                        + "cannot read");
    }

    @Test
    void countByKeyNamesAMissingKeyFieldAndAddsANewCountFieldWhichTheSinksFormatMustFit() throws Exception {
        assertThat(errorFor(JobFiles.validWith(dir, "    uid: count\n", "    uid: count\n    options: {key: customer}\n")))
                .endsWith(": steps[0] 'count-by-key': key field 'customer' is not a field of the input; fields: id, key, "
                        + "payload, count");
        assertThat(errorFor(JobFiles.validWith(dir, "    uid: count\n", "    uid: count\n    options: {key: payload, count: id}\n")))
                .endsWith(": steps[0] 'count-by-key': count field 'id' is a string not null; the running count needs a "
                        + "long field, or a name that is not a field of the input");
        // a new field "n" after the event's four: the event lines of the default format cannot hold it
        assertThat(errorFor(JobFiles.validWith(dir, "    uid: count\n", "    uid: count\n    options: {count: n}\n")))
                .contains(": sink 'filesystem': format 'event': the schema must be row<id string not null,")
                .endsWith("; field 'n' does not fit");
    }

    @Test
    void unalignedCheckpointsAreOptInAndNeedExactlyOnce() throws Exception {
        Path file = JobFiles.write(dir, "job.yaml",
                JobFiles.validWith(dir, "mode: exactly-once", "mode: exactly-once\n  unaligned: true"));

        JobFileLoader.LoadedJob job = loader.load(file);

        assertThat(job.environment().checkpointConfig().unaligned()).isTrue();
        assertThat(job.environment().plan().stages()).as("records between the stages have a serializer").hasSize(2);
        assertThat(loader.load(JobFiles.write(dir, "aligned.yaml", JobFiles.valid(dir))).environment()
                .checkpointConfig().unaligned()).as("the default").isFalse();
        assertThat(errorFor(JobFiles.validWith(dir, "mode: exactly-once", "mode: at-least-once\n  unaligned: true")))
                .endsWith(": checkpoints.unaligned needs checkpoints.mode exactly-once (at-least-once does not align"
                        + " barriers in the first place)");
    }

    /** The top-level fields a job file may have, as {@link JobFile} declares them. */
    private static String knownTopLevelFields() {
        return Arrays.stream(JobFile.class.getRecordComponents())
                .map(c -> c.getAccessor().getAnnotation(JsonProperty.class).value()).sorted()
                .collect(Collectors.joining(", "));
    }

    private static String datagenOptions() {
        return new DatagenSourceFactory().options().stream().map(Option::key).collect(Collectors.joining(", "));
    }

    @Test
    void anUnknownTopLevelFieldNamesTheFieldAndTheKnownOnes() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "parallelism: 2", "paralelism: 2"));

        assertThat(message).contains("unknown field 'paralelism'")
                .endsWith("; known fields: " + knownTopLevelFields());
        assertThat(knownTopLevelFields()).contains("parallelism", "sink", "source", "steps");
    }

    /** "The place": the line of the misspelled field (2), not the end of the document. */
    @Test
    void anUnknownTopLevelFieldIsReportedAtItsLine() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "parallelism: 2", "paralelism: 2"));

        assertThat(message).startsWith(dir.resolve("job.yaml") + ":2: ");
    }

    @Test
    void aCheckpointDirectoryOnAFileSystemNobodyServesFailsAtStartNamingTheModule() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "dir: " + dir.resolve("checkpoints"),
                "dir: hdfs://namenode:8020/checkpoints"));

        assertThat(message).endsWith(": checkpoints.dir: no checkpoint storage for 'hdfs://namenode:8020/checkpoints': "
                + "nothing on the class path serves 'hdfs:' (for hdfs: put onceflow-checkpoint-storage-hadoop on the class path)");
    }

    @Test
    void anUnknownStateBackendNamesTheModuleThatProvidesIt() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "parallelism: 2", "parallelism: 2\nstate-backend: rocksdb"));

        assertThat(message).isEqualTo(dir.resolve("job.yaml") + ": no state backend named 'rocksdb' on the class path; "
                + "known: [heap] (add the onceflow-state-rocksdb jar)");
    }

    @Test
    void theStateBackendIsChosenByName() throws Exception {
        Path file = JobFiles.write(dir, "job.yaml",
                JobFiles.validWith(dir, "parallelism: 2", "parallelism: 2\nstate-backend: heap"));

        assertThat(loader.load(file).environment().plan().stateBackend().name()).isEqualTo("heap");
    }

    @Test
    void anUnknownSourceTypeListsTheAvailableOnes() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "type: datagen", "type: kafka"));

        assertThat(message).contains("no source connector 'kafka'").endsWith("available: datagen");
    }

    @Test
    void anUnknownSinkTypeListsTheAvailableOnes() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "type: filesystem", "type: jdbc"));

        assertThat(message).contains("no sink connector 'jdbc'").endsWith("available: filesystem");
    }

    @Test
    void anUnknownConnectorOptionListsTheAcceptedOnes() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "rows: 100", "rowz: 100"));

        assertThat(message).isEqualTo(dir.resolve("job.yaml") + ": source 'datagen': unknown option 'rowz'; "
                + "accepted options: " + datagenOptions());
    }

    @Test
    void aBadOptionValueNamesTheOptionAndTheAcceptedValues() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "rows: 100", "rows: many"));

        assertThat(message).isEqualTo(dir.resolve("job.yaml") + ": source 'datagen': option 'rows' has value 'many'; "
                + "expected " + DatagenSourceFactory.ROWS.accepted());
        assertThat(DatagenSourceFactory.ROWS.accepted()).contains(">= 1");
    }

    @Test
    void anOptionValueBelowItsMinimumIsRejected() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "keys: 3", "keys: 0"));

        assertThat(message).isEqualTo(dir.resolve("job.yaml") + ": source 'datagen': option 'keys' has value '0'; "
                + "expected " + DatagenSourceFactory.KEYS.accepted());
    }

    @Test
    void aBadDurationNamesTheFieldAndTheFormat() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "interval: 100ms", "interval: 5 parsecs"));

        assertThat(message).isEqualTo(dir.resolve("job.yaml")
                + ": checkpoints: option 'interval' has value '5 parsecs'; expected a duration such as 500ms, 10s, 5m");
    }

    /** Hours beyond what a long holds in milliseconds overflowed into an ArithmeticException with a stack trace. */
    @Test
    void aDurationTooLongForTheRuntimeNamesTheFieldAndTheLimit() throws Exception {
        assertThat(errorFor(JobFiles.validWith(dir, "interval: 100ms", "interval: 99999999999999999h")))
                .isEqualTo(dir.resolve("job.yaml") + ": checkpoints: option 'interval' has value '99999999999999999h'; "
                        + "expected a duration such as 500ms, 10s, 5m");
        assertThat(errorFor(JobFiles.validWith(dir, "delay: 10ms", "delay: 99999999999999999999")))
                .isEqualTo(dir.resolve("job.yaml") + ": restart: option 'delay' has value '99999999999999999999'; "
                        + "expected a duration such as 500ms, 10s, 5m");
    }

    @Test
    void aBadModeListsTheModes() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "mode: exactly-once", "mode: twice"));

        assertThat(message).isEqualTo(dir.resolve("job.yaml")
                + ": checkpoints: option 'mode' has value 'twice'; expected one of exactly-once, at-least-once");
    }

    @Test
    void aMissingSinkIsNamed() throws Exception {
        String valid = JobFiles.valid(dir);
        String withoutSink = valid.substring(0, valid.indexOf("sink:")) + valid.substring(valid.indexOf("checkpoints:"));

        String message = errorFor(withoutSink);

        assertThat(message).contains("'sink'").containsIgnoringCase("missing");
    }

    @Test
    void anUnknownStepTypeListsTheKnownOnes() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "type: count-by-key", "type: dedupe"));

        assertThat(message).isEqualTo(dir.resolve("job.yaml") + ": steps[0] has unknown type 'dedupe'; known: "
                + String.join(", ", JobFileLoader.STEP_TYPES));
        assertThat(JobFileLoader.STEP_TYPES).contains("count-by-key");
    }

    @Test
    void aBadRestartStrategyListsTheStrategies() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "strategy: fixed-delay", "strategy: sometimes"));

        assertThat(message).isEqualTo(dir.resolve("job.yaml")
                + ": restart: option 'strategy' has value 'sometimes'; expected one of none, fixed-delay, failure-rate");
    }

    /** Runtime settings are options like a connector's: checked, and refused where they would do nothing. */
    @Test
    void runtimeSettingsOutOfRangeUnknownOrUnusedAreRefusedInOneLine() throws Exception {
        assertThat(errorFor(JobFiles.validWith(dir, "attempts: 2", "attempts: -1")))
                .isEqualTo(dir.resolve("job.yaml") + ": restart: option 'attempts' has value '-1'; expected "
                        + RuntimeSettings.ATTEMPTS.accepted());
        assertThat(errorFor(JobFiles.validWith(dir, "interval: 100ms", "interval: 100ms\n  intervall: 1s")))
                .startsWith(dir.resolve("job.yaml") + ": checkpoints: unknown option 'intervall'; accepted options: "
                        + "interval, mode, dir, timeout, ");
        assertThat(errorFor(JobFiles.validWith(dir, "attempts: 2", "attempts: 2\n  max-failures: 5")))
                .isEqualTo(dir.resolve("job.yaml") + ": restart.max-failures does nothing with strategy fixed-delay;"
                        + " remove it");
        assertThat(errorFor(JobFiles.validWith(dir, "interval: 100ms", "interval: 100ms\n  retained: 0")))
                .isEqualTo(dir.resolve("job.yaml") + ": checkpoints: option 'retained' has value '0'; expected "
                        + RuntimeSettings.RETAINED.accepted());
    }

    @Test
    void aMissingRequiredSinkOptionIsNamed() throws Exception {
        String valid = JobFiles.valid(dir);
        String withoutPath = valid.replaceFirst("(?m)^    path: .*\\n", "    part-prefix: events\n");

        String message = errorFor(withoutPath);

        assertThat(message).startsWith(dir.resolve("job.yaml") + ": sink 'filesystem': missing required option 'path'");
    }

    @Test
    void aMissingFileIsNamed() throws Exception {
        Path missing = dir.resolve("nope.yaml");

        JobFileException e = catchThrowableOfType(JobFileException.class, () -> loader.load(missing));

        assertThat(e).hasMessage(missing + ": no such file");
    }

    @Test
    void aNameMustFitTheCheckpointDirectory() throws Exception {
        String rule = " is not a job name; expected 1 to 100 letters, digits, '.', '_' or '-', other than '.' and '..'"
                + " (it names the job's checkpoint directory)";
        String hundred = "a".repeat(100);
        assertThat(loader.load(JobFiles.write(dir, "100.yaml", JobFiles.validWith(dir, "name: good-job", "name: " + hundred)))
                .spec().name()).isEqualTo(hundred);

        assertThat(errorFor(JobFiles.validWith(dir, "name: good-job", "name: " + hundred + "b")))
                .isEqualTo(dir.resolve("job.yaml") + ":1: name '" + "a".repeat(40) + "...' (101 characters)" + rule);
        assertThat(errorFor(JobFiles.validWith(dir, "name: good-job", "name: good job")))
                .isEqualTo(dir.resolve("job.yaml") + ":1: name 'good job'" + rule);
        assertThat(errorFor(JobFiles.validWith(dir, "name: good-job", "name: '..'")))
                .isEqualTo(dir.resolve("job.yaml") + ":1: name '..'" + rule);
        assertThat(errorFor(JobFiles.validWith(dir, "name: good-job", "name: ''")))
                .isEqualTo(dir.resolve("job.yaml") + ":1: name ''" + rule);
        assertThat(errorFor(JobFiles.validWith(dir, "parallelism: 2", "parallelism: 2\nname: x/y").replace("name: good-job\n", "")))
                .as("the line of the top-level name").isEqualTo(dir.resolve("job.yaml") + ":2: name 'x/y'" + rule);
    }

    /** {@code source:} with nothing after it was null and an NPE in the loader, exit 1 with a stack trace. */
    @Test
    void anEmptySourceIsNamedWithItsLine() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, SOURCE, "source:\n"));

        assertThat(message).isEqualTo(dir.resolve("job.yaml") + ":3: field 'source' is empty; it is required");
    }

    @Test
    void aNullNameIsNamedWithItsLine() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "name: good-job", "name: ~"));

        assertThat(message).isEqualTo(dir.resolve("job.yaml") + ":1: field 'name' is empty; it is required");
    }

    @Test
    void anEmptyTypeOrStepIsNamedWithItsPath() throws Exception {
        assertThat(errorFor(JobFiles.validWith(dir, "type: filesystem", "type:")))
                .isEqualTo(dir.resolve("job.yaml") + ":12: field 'sink.type' is empty; it is required");
        assertThat(errorFor(JobFiles.validWith(dir, "  - type: count-by-key\n    uid: count\n", "  - ~\n")))
                .isEqualTo(dir.resolve("job.yaml") + ":9: field 'steps[0]' is empty; it is required");
    }

    /** The last of two equal keys used to win silently. */
    @Test
    void aFieldSetTwiceIsRefusedAtItsSecondLine() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "parallelism: 2", "parallelism: 2\nparallelism: 4"));

        assertThat(message).isEqualTo(dir.resolve("job.yaml")
                + ":3: field 'parallelism' is set a second time here; each field may be set once");
    }

    @Test
    void anOptionSetTwiceIsRefusedWithItsPath() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "rows: 100", "rows: 100\n    rows: 5"));

        assertThat(message).isEqualTo(dir.resolve("job.yaml")
                + ":7: field 'source.options.rows' is set a second time here; each field may be set once");
    }

    /** Jackson read the first document and ignored the rest. */
    @Test
    void aSecondYamlDocumentIsRefused() throws Exception {
        String message = errorFor(JobFiles.valid(dir) + "---\nname: other-job\n");

        assertThat(message).isEqualTo(dir.resolve("job.yaml")
                + ":24: a second YAML document starts here; a job file holds exactly one (one job per file)");
        Path leadingMarker = JobFiles.write(dir, "marker.yaml", "---\n" + JobFiles.valid(dir) + "...\n");
        assertThat(loader.load(leadingMarker).spec().name()).as("one document with its markers").isEqualTo("good-job");
    }

    /** {@code parallelism: 1.5} became 1. */
    @Test
    void aFractionWhereAWholeNumberBelongsIsRefused() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "parallelism: 2", "parallelism: 1.5"));

        assertThat(message).isEqualTo(dir.resolve("job.yaml") + ":2: field 'parallelism': expected a whole number, found '1.5'");
    }

    @Test
    void aValueOfTheWrongKindSaysWhatWasFoundAndWhatIsAccepted() throws Exception {
        assertThat(errorFor(JobFiles.validWith(dir, "parallelism: 2", "parallelism: [2]")))
                .isEqualTo(dir.resolve("job.yaml") + ":2: field 'parallelism': expected a whole number, found a list");
        assertThat(errorFor(JobFiles.validWith(dir, "parallelism: 2", "parallelism: 99999999999")))
                .isEqualTo(dir.resolve("job.yaml") + ":2: field 'parallelism': expected a whole number from -2147483648"
                        + " to 2147483647, found '99999999999'");
        assertThat(errorFor(JobFiles.validWith(dir, "attempts: 2", "attempts: two")))
                .isEqualTo(dir.resolve("job.yaml") + ": restart: option 'attempts' has value 'two'; expected "
                        + RuntimeSettings.ATTEMPTS.accepted());
        assertThat(errorFor(JobFiles.validWith(dir, "name: good-job", "name: {first: good}")))
                .isEqualTo(dir.resolve("job.yaml") + ":1: field 'name': expected text, found a mapping");
        assertThat(errorFor(JobFiles.validWith(dir, SOURCE, "source: datagen\n")))
                .isEqualTo(dir.resolve("job.yaml") + ":3: field 'source': expected a mapping such as {type: <connector>,"
                        + " options: {...}}, found 'datagen'");
        assertThat(errorFor("- name: good-job\n"))
                .isEqualTo(dir.resolve("job.yaml") + ":1: the document: expected a mapping of the job's fields (name,"
                        + " source, sink, ...), found a list");
    }

    /** Connector options may hold a password: a wrong kind of value there is described, not repeated. */
    @Test
    void optionsOfTheWrongKindAreNotRepeated() throws Exception {
        String message = errorFor(JobFiles.validWith(dir, "options:\n    path: ", "options: password=hunter2\n    path: "));

        assertThat(message).isEqualTo(dir.resolve("job.yaml")
                + ":13: field 'sink.options': expected a mapping of names to values, found text");
    }

    @Test
    void aMissingFieldSaysItIsRequired() throws Exception {
        assertThat(errorFor(JobFiles.validWith(dir, "name: good-job\n", "")))
                .isEqualTo(dir.resolve("job.yaml") + ": field 'name' is missing; it is required");
        assertThat(errorFor(JobFiles.validWith(dir, "  type: filesystem\n", "")))
                .isEqualTo(dir.resolve("job.yaml") + ": field 'sink.type' is missing; it is required");
    }

    @Test
    void anEmptyFileSaysSo() throws Exception {
        for (String empty : new String[] {"", "# nothing yet\n", "~\n", "---\n"}) {
            assertThat(errorFor(empty)).as("%s", empty).isEqualTo(dir.resolve("job.yaml")
                    + ": the file is empty; expected a job with at least name, source and sink");
        }
    }

    @Test
    void invalidYamlIsReportedOnOneLine() throws Exception {
        String message = errorFor("name: \"unterminated\nsource: {type: datagen}\n");

        assertThat(message).contains("not valid YAML");
    }
}
