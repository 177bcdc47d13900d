package dev.onceflow.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source's {@code event-time} block and the {@code window} of the {@code aggregate} step, as the
 * command line refuses them: before the job runs, exit status 2, one line naming the problem. And
 * a row without its event time fails the job naming the row.
 */
class EventTimeJobFileTest {

    @TempDir
    Path dir;

    /** Datagen rows of a declared schema, event time from {@code placed}, through {@code steps} into JSON lines. */
    private String job(String eventTime, String steps, String placedOptions) {
        return """
                name: event-time
                parallelism: 2
                source:
                  type: datagen
                  options:
                    seed: 7
                    fields.order_id.kind: sequence
                    fields.order_id.start: 1
                    fields.order_id.end: 200
                    fields.customer.values: alice, bob
                    fields.placed.min: '2026-12-01T00:00:00Z'
                    fields.placed.max: '2026-12-01T01:00:00Z'
                %s
                  schema:
                    fields:
                      order_id: long not null
                      customer: string not null
                      amount: long
                      day: date
                      placed: timestamptz
                      local: timestamp
                    primary-key: [order_id]
                %s
                steps:
                %s
                sink:
                  type: filesystem
                  options:
                    path: %s
                  format: json
                checkpoints:
                  interval: 100ms
                  dir: %s
                """.formatted(placedOptions.indent(4).stripTrailing(), eventTime.indent(2).stripTrailing(),
                steps.indent(2).stripTrailing(), dir.resolve("out"), dir.resolve("checkpoints"));
    }

    private static final String EVENT_TIME = """
            event-time:
              field: placed
              max-out-of-orderness: 5s
            """;

    private static final String WINDOW = "- {type: aggregate, options: {key: customer, window: 1m, n: count()}}";

    /** The one line the command line prints for {@code yaml}, after its exit status 2 was checked. */
    private String refusal(String yaml) throws Exception {
        Path file = JobFiles.write(dir, "job.yaml", yaml);
        JobFiles.Run run = JobFiles.run(file);
        assertThat(run.status()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).as("one line").endsWith("\n").containsOnlyOnce("\n").startsWith("onceflow: " + file);
        assertThat(run.out()).as("nothing ran").doesNotContain("datagen ->");
        return run.err().substring(("onceflow: " + file).length()).strip();
    }

    private String refusal(String eventTime, String steps) throws Exception {
        return refusal(job(eventTime, steps, ""));
    }

    @Test
    void aFieldThatIsNotThereIsRefused() throws Exception {
        assertThat(refusal(EVENT_TIME.replace("field: placed", "field: placed_at"), WINDOW))
                .isEqualTo(": source 'datagen' event-time field: 'placed_at' is not a field of the source's rows; "
                        + "fields: order_id, customer, amount, day, placed, local");
    }

    @Test
    void aFieldThatIsNoTimestampIsRefusedNamingItsType() throws Exception {
        assertThat(refusal(EVENT_TIME.replace("field: placed", "field: day"), WINDOW))
                .isEqualTo(": source 'datagen' event-time field: 'day' is a date; event time comes from a timestamptz "
                        + "field, or a timestamp field read as UTC");
        assertThat(refusal(EVENT_TIME.replace("field: placed", "field: amount"), WINDOW))
                .isEqualTo(": source 'datagen' event-time field: 'amount' is a long; event time comes from a "
                        + "timestamptz field, or a timestamp field read as UTC");
    }

    @Test
    void aNegativeOrGarbledDurationIsRefused() throws Exception {
        assertThat(refusal(EVENT_TIME.replace("5s", "-5s"), WINDOW))
                .isEqualTo(": source 'datagen' event-time max-out-of-orderness: '-5s' is not a duration such as "
                        + "500ms, 10s, 5m");
        assertThat(refusal(EVENT_TIME + "  idleness: a while\n", WINDOW))
                .isEqualTo(": source 'datagen' event-time idleness: 'a while' is not a duration such as 500ms, 10s, 5m");
        assertThat(refusal(EVENT_TIME + "  idleness: 0s\n", WINDOW))
                .isEqualTo(": source 'datagen' event-time idleness: must be longer than 0; leave it out for a source "
                        + "that never goes idle");
    }

    @Test
    void anUnknownOrMissingKeyOfTheBlockIsRefused() throws Exception {
        assertThat(refusal(EVENT_TIME + "  lateness: 1m\n", WINDOW))
                .matches(":\\d+: unknown field 'lateness' in 'source.event-time'; known fields: field, idleness, "
                        + "max-out-of-orderness");
        assertThat(refusal(EVENT_TIME.replace("  max-out-of-orderness: 5s\n", ""), WINDOW))
                .isEqualTo(": field 'source.event-time.max-out-of-orderness' is missing; it is required");
    }

    @Test
    void aWindowWithoutEventTimeOrOfNoLengthIsRefused() throws Exception {
        assertThat(refusal("", WINDOW))
                .isEqualTo(": steps[0] 'aggregate' option 'window': a window is of event time, and the source declares"
                        + " none; add event-time: {field: <a timestamp field>, max-out-of-orderness: <duration>} to the"
                        + " source");
        assertThat(refusal(EVENT_TIME, WINDOW.replace("1m", "0s")))
                .isEqualTo(": steps[0] 'aggregate' option 'window': '0s' is no length; a window lasts 1ms or more");
        assertThat(refusal(EVENT_TIME, WINDOW.replace("n: count()", "window_end: count()")))
                .isEqualTo(": steps[0] 'aggregate' option 'window_end': 'window_end' is a field of the window's rows "
                        + "already; give the aggregate another name");
    }

    @Test
    void eventTimeOnTheSinkIsRefused() throws Exception {
        String yaml = job(EVENT_TIME, WINDOW, "").replace("  format: json\n", "  format: json\n" + EVENT_TIME.indent(2));
        assertThat(refusal(yaml)).isEqualTo(": sink 'filesystem' has no event-time; declare it on the source");
    }

    @Test
    void aRowWithoutItsEventTimeFailsTheJobNamingTheRow() throws Exception {
        JobFiles.Run run = JobFiles.run(JobFiles.write(dir, "job.yaml",
                job(EVENT_TIME, WINDOW, "fields.placed.null-rate: 0.5")));

        assertThat(run.status()).as(run.err()).isEqualTo(1);
        assertThat(run.err()).containsPattern("source 'datagen' event-time: field 'placed' is null in record "
                + "order_id=\\d+; every row needs its event time");
    }
}
