package dev.onceflow.conformance;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How one case of a suite ended, as its report shows it. Only {@link #PASSED} counts towards a
 * guarantee: a case that errored or did not run proves nothing either way, so a report with such
 * a required case claims no guarantee (see {@link ConformanceReport.Document#notPassed()}).
 */
public enum CaseVerdict {
    /** The case reached its verdict and every check of it held. */
    @JsonProperty("passed")
    PASSED("passed"),
    /** A check naming a rule of {@code docs/spec.md} failed: the connector broke that rule. */
    @JsonProperty("violated")
    VIOLATED("violated"),
    /**
     * The case ended without reaching a verdict: any exception other than a rule's failed check,
     * in the fixture, the harness or the job (the job did not halt where the case armed a fault,
     * did not recover), or a case that returned without judging anything.
     */
    @JsonProperty("errored")
    ERRORED("errored"),
    /** The case never ran in this run: left out by a {@code -Dtest} selection, disabled, or aborted by an assumption. */
    @JsonProperty("not-run")
    NOT_RUN("not run");

    private final String label;

    CaseVerdict(String label) {
        this.label = label;
    }

    /** As the Markdown report and error messages write it. */
    public String label() {
        return label;
    }
}
