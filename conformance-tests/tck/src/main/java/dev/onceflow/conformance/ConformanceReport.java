package dev.onceflow.conformance;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The report of one connector's run: {@code target/conformance/<kind>-<connector>.json} and
 * {@code .md}, from which {@link GuaranteesMatrix} builds {@code docs/guarantees.md}.
 */
public final class ConformanceReport {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** The JSON document. */
    public record Document(String connector, String kind, String profile, long seed, String finishedAt,
            String guarantee, List<CaseResult> cases) {
    }

    private final String connector;
    private final String kind;
    private final ConformanceSettings settings;
    private final List<CaseResult> cases = new ArrayList<>();

    public ConformanceReport(String connector, String kind, ConformanceSettings settings) {
        this.connector = connector;
        this.kind = kind;
        this.settings = settings;
    }

    public synchronized void add(CaseResult result) {
        cases.add(result);
    }

    /** The weakest guarantee any applicable case showed. */
    public synchronized String guarantee() {
        boolean any = false;
        String worst = "exactly-once";
        for (CaseResult c : cases) {
            if (c.guarantee().equals("not-applicable") || c.rule().equals("self-check")) {
                continue;
            }
            any = true;
            if (c.guarantee().equals("violated")) {
                return "violated";
            }
            if (c.guarantee().equals("at-least-once")) {
                worst = "at-least-once";
            }
        }
        return any ? worst : "untested";
    }

    public synchronized void write(Path directory) throws IOException {
        Files.createDirectories(directory);
        String base = kind + "-" + connector;
        Document document = new Document(connector, kind, settings.profile(), settings.seed(), Instant.now().toString(),
                guarantee(), List.copyOf(cases));
        JSON.writeValue(directory.resolve(base + ".json").toFile(), document);
        StringBuilder md = new StringBuilder();
        md.append("# Conformance: ").append(kind).append(" `").append(connector).append("`\n\n");
        md.append("Profile `").append(settings.profile()).append("`, seed ").append(settings.seed())
                .append(", guarantee reached: **").append(guarantee()).append("**\n\n");
        md.append("| case | rule | faults | crashes | records | lost | duplicated | unexpected | left behind | recovery ms | guarantee | result |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (CaseResult c : cases) {
            md.append("| ").append(c.name()).append(" | ").append(c.rule()).append(" | ")
                    .append(c.faults().isEmpty() ? "-" : String.join("<br>", c.faults())).append(" | ")
                    .append(c.crashes()).append(" | ").append(c.records()).append(" | ").append(c.lost()).append(" | ")
                    .append(c.duplicated()).append(" | ").append(c.unexpected()).append(" | ").append(c.leftovers())
                    .append(" | ").append(c.recoveryMillis()).append(" | ").append(c.guarantee()).append(" | ")
                    .append(c.passed() ? "pass" : "FAIL").append(" |\n");
        }
        Files.writeString(directory.resolve(base + ".md"), md.toString());
    }
}
