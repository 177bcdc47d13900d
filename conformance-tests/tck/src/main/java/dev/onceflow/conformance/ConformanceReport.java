package dev.onceflow.conformance;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.opentest4j.TestAbortedException;

/**
 * The report of one connector's run: {@code target/conformance/<kind>-<connector>.json} and
 * {@code .md}, from which {@link GuaranteesMatrix} builds {@code docs/guarantees.md}. It lists every
 * case of the suite, run or not, with its verdict ({@link CaseVerdict}), and claims a guarantee only
 * when every required case passed: a run of a {@code -Dtest} subset, or one in which a case errored,
 * says which cases keep it from claiming one.
 */
public final class ConformanceReport {

    /**
     * 2: every case of the suite is listed, each row has a verdict, and {@code guarantee} is
     * {@value #NOT_CLAIMED} unless every required case passed. Version 1 (no {@code formatVersion})
     * listed only the checks cases recorded, so a case that errored or did not run was missing.
     */
    public static final int FORMAT_VERSION = 2;

    /** The headline of a report in which a required case did not pass. */
    public static final String NOT_CLAIMED = "not-claimed";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * The JSON document. Readers of version 1 read it too: the fields they know mean what they
     * meant, except that {@code cases} now also holds rows for cases that made no check.
     *
     * @param guarantee the weakest guarantee the applicable checks showed, if every required case
     *     passed; otherwise {@value #NOT_CLAIMED}
     * @param notClaimedBecause the required cases that did not pass, as {@link #notPassed()} words them
     */
    public record Document(int formatVersion, String connector, String kind, String profile, long seed,
            String finishedAt, String guarantee, List<String> notClaimedBecause, List<CaseResult> cases) {

        public Document {
            notClaimedBecause = notClaimedBecause == null ? List.of() : List.copyOf(notClaimedBecause);
            cases = cases == null ? List.of() : List.copyOf(cases);
        }

        static Document of(String connector, String kind, ConformanceSettings settings, List<CaseResult> cases) {
            List<String> notPassed = notPassed(cases);
            return new Document(FORMAT_VERSION, connector, kind, settings.profile(), settings.seed(),
                    Instant.now().toString(), notPassed.isEmpty() ? weakestShown(cases) : NOT_CLAIMED, notPassed,
                    List.copyOf(cases));
        }

        /** Each case once, in the report's order, with its verdict. */
        public Map<String, CaseVerdict> verdicts() {
            Map<String, CaseVerdict> verdicts = new LinkedHashMap<>();
            cases.forEach(row -> verdicts.putIfAbsent(row.name(), row.verdict()));
            return verdicts;
        }

        /** The rows of one case: its checks, and the row that says why it errored or did not run. */
        public List<CaseResult> rowsOf(String name) {
            return cases.stream().filter(row -> row.name().equals(name)).toList();
        }

        /** The required cases that did not pass, each as {@code name (verdict: why)}; empty if a guarantee can be claimed. */
        public List<String> notPassed() {
            return notPassed(cases);
        }

        /**
         * Why this report cannot vouch for a guarantee, in one line, or empty if it can: written
         * before reports listed every case, listing none, or with a required case that did not pass.
         */
        public Optional<String> refusal() {
            if (formatVersion < FORMAT_VERSION) {
                return Optional.of("format " + Math.max(1, formatVersion) + " (before format " + FORMAT_VERSION
                        + ") left out cases that errored or did not run, so it cannot show that every case passed");
            }
            long required = verdicts().keySet().stream().filter(SuiteCases::required).count();
            if (required == 0) {
                return Optional.of("it lists no required case");
            }
            List<String> notPassed = notPassed();
            if (notPassed.isEmpty()) {
                return Optional.empty();
            }
            boolean partial = cases.stream().anyMatch(row -> row.required() && row.verdict() == CaseVerdict.NOT_RUN);
            int shown = Math.min(5, notPassed.size());
            return Optional.of((partial ? "partial run: " : "") + notPassed.size() + " of " + required
                    + " required cases did not pass: " + String.join(", ", notPassed.subList(0, shown))
                    + (notPassed.size() > shown ? " and " + (notPassed.size() - shown) + " more" : ""));
        }

        private static List<String> notPassed(List<CaseResult> cases) {
            Map<String, List<CaseResult>> byCase = new LinkedHashMap<>();
            cases.forEach(row -> byCase.computeIfAbsent(row.name(), k -> new ArrayList<>()).add(row));
            List<String> notPassed = new ArrayList<>();
            byCase.forEach((name, rows) -> {
                CaseResult first = rows.get(0);
                if (first.required() && first.verdict() != CaseVerdict.PASSED) {
                    notPassed.add(name + " (" + first.verdict().label() + why(rows) + ")");
                }
            });
            return notPassed;
        }

        /** What a failed check showed ("2PC-4 at-least-once"), or why the case errored or did not run. */
        private static String why(List<CaseResult> rows) {
            String failedChecks = rows.stream().filter(row -> !row.passed() && !row.guarantee().equals(CaseResult.NO_CHECK))
                    .map(row -> row.rule() + " " + row.guarantee()).collect(Collectors.joining(", "));
            String detail = rows.stream().map(CaseResult::detail).filter(d -> !d.isEmpty()).findFirst().orElse("");
            String why = failedChecks.isEmpty() ? detail : failedChecks;
            return why.isEmpty() ? "" : ": " + why;
        }

        /** The weakest guarantee any applicable check of a required case showed. */
        private static String weakestShown(List<CaseResult> cases) {
            boolean any = false;
            String worst = "exactly-once";
            for (CaseResult c : cases) {
                if (!c.required() || c.guarantee().equals("not-applicable") || c.guarantee().equals(CaseResult.NO_CHECK)) {
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
    }

    /** What the suite saw of a case while it ran. */
    private static final class Outcome {
        boolean started;
        Throwable failure;
        String disabled;
    }

    private final String connector;
    private final String kind;
    private final ConformanceSettings settings;
    private final Map<String, List<CaseResult>> checks = new LinkedHashMap<>();
    private final Map<String, Outcome> outcomes = new LinkedHashMap<>();
    private String running;
    private Throwable fixtureFailure;

    public ConformanceReport(String connector, String kind, ConformanceSettings settings) {
        this.connector = connector;
        this.kind = kind;
        this.settings = settings;
    }

    /** A check of the case that is running (or of the case {@code result} names, outside one). */
    public synchronized void add(CaseResult result) {
        checks.computeIfAbsent(running != null ? running : result.name(), k -> new ArrayList<>()).add(result);
    }

    synchronized void caseStarted(String name) {
        outcome(name).started = true;
        running = name;
    }

    /** @param failure what the case threw, or {@code null} */
    synchronized void caseEnded(String name, Throwable failure) {
        if (failure != null && outcome(name).failure == null) {
            outcome(name).failure = failure;
        }
        running = null;
    }

    /** The case failed outside its body (an {@code @BeforeEach} or {@code @AfterEach}), or its body did. */
    synchronized void caseFailedAround(String name, Throwable failure) {
        outcome(name).started = true;
        caseEnded(name, failure);
    }

    synchronized void caseDisabled(String name, String reason) {
        outcome(name).disabled = reason;
    }

    /** The fixture did not start: no case could run, and each is reported as errored with this. */
    synchronized void fixtureFailed(Throwable failure) {
        fixtureFailure = failure;
    }

    private Outcome outcome(String name) {
        return outcomes.computeIfAbsent(name, k -> new Outcome());
    }

    /**
     * The report of the run: every case of {@code declared} (the suite's, see {@link SuiteCases})
     * and any other that ran, with its checks and verdict.
     */
    public synchronized Document document(List<String> declared) {
        Set<String> names = new LinkedHashSet<>(declared);
        names.addAll(outcomes.keySet());
        names.addAll(checks.keySet());
        List<CaseResult> rows = new ArrayList<>();
        for (String name : names) {
            List<CaseResult> made = checks.getOrDefault(name, List.of());
            Outcome outcome = outcomes.getOrDefault(name, new Outcome());
            CaseVerdict verdict;
            String detail = "";
            if (made.stream().anyMatch(check -> !check.passed())) {
                verdict = CaseVerdict.VIOLATED;
            } else if (!outcome.started && fixtureFailure != null) {
                verdict = CaseVerdict.ERRORED;
                detail = "the fixture did not start: " + describe(fixtureFailure);
            } else if (!outcome.started) {
                verdict = CaseVerdict.NOT_RUN;
                detail = outcome.disabled != null ? "disabled: " + outcome.disabled : "not selected in this run";
            } else if (outcome.failure instanceof TestAbortedException) {
                verdict = CaseVerdict.NOT_RUN;
                detail = "aborted: " + describe(outcome.failure);
            } else if (outcome.failure != null) {
                verdict = CaseVerdict.ERRORED;
                detail = describe(outcome.failure);
            } else if (made.isEmpty()) {
                verdict = CaseVerdict.ERRORED;
                detail = "ended without a verdict: it recorded no check (ConformanceCase.assertExactlyOnce, recordCheck)";
            } else {
                verdict = CaseVerdict.PASSED;
            }
            boolean required = SuiteCases.required(name);
            made.forEach(check -> rows.add(check.ofCase(name, verdict, required)));
            if (!detail.isEmpty()) {
                rows.add(CaseResult.withoutCheck(name, verdict, required, detail));
            }
        }
        return Document.of(connector, kind, settings, rows);
    }

    /** The exception's type and the first line of its message. */
    private static String describe(Throwable failure) {
        String message = failure.getMessage() == null ? "" : failure.getMessage().strip().lines().findFirst().orElse("");
        return failure.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
    }

    public void write(Path directory, List<String> declared) throws IOException {
        Document document = document(declared);
        Files.createDirectories(directory);
        String base = kind + "-" + connector;
        JSON.writeValue(directory.resolve(base + ".json").toFile(), document);
        Files.writeString(directory.resolve(base + ".md"), markdown(document));
    }

    private static String markdown(Document document) {
        Map<String, CaseVerdict> verdicts = document.verdicts();
        long passed = verdicts.values().stream().filter(v -> v == CaseVerdict.PASSED).count();
        StringBuilder md = new StringBuilder();
        md.append("# Conformance: ").append(document.kind()).append(" `").append(document.connector()).append("`\n\n");
        md.append("Profile `").append(document.profile()).append("`, seed ").append(document.seed()).append(", ")
                .append(passed).append(" of ").append(verdicts.size()).append(" cases passed. ");
        if (document.notClaimedBecause().isEmpty()) {
            md.append("Guarantee reached: **").append(document.guarantee()).append("**\n\n");
        } else {
            md.append("Guarantee: **not claimed**, because these required cases did not pass:\n\n");
            document.notClaimedBecause().forEach(c -> md.append("- ").append(c).append('\n'));
            md.append('\n');
        }
        md.append("| case | verdict | rule | faults | crashes | records | lost | duplicated | unexpected | left behind "
                + "| recovery ms | guarantee | check | detail |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (CaseResult c : document.cases()) {
            boolean check = !c.guarantee().equals(CaseResult.NO_CHECK);
            md.append("| ").append(c.name()).append(" | ").append(c.verdict().label()).append(" | ").append(c.rule())
                    .append(" | ").append(c.faults().isEmpty() ? "-" : String.join("<br>", c.faults())).append(" | ")
                    .append(c.crashes()).append(" | ").append(c.records()).append(" | ").append(c.lost()).append(" | ")
                    .append(c.duplicated()).append(" | ").append(c.unexpected()).append(" | ").append(c.leftovers())
                    .append(" | ").append(c.recoveryMillis()).append(" | ").append(check ? c.guarantee() : "-")
                    .append(" | ").append(!check ? "-" : c.passed() ? "pass" : "FAIL").append(" | ")
                    .append(c.detail().isEmpty() ? "" : c.detail().replace("|", "\\|")).append(" |\n");
        }
        return md.toString();
    }
}
