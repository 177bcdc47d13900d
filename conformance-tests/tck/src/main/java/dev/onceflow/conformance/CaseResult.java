package dev.onceflow.conformance;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.List;

/**
 * One row of a conformance report: a check a case made (a case may make more than one, as
 * {@code required_2pc1_...} checks 2PC-1 and then EO-1), or, for a case that made none or ended
 * without a verdict after its checks, the row that says so.
 *
 * @param name the case: its test method, or {@code <factory method>/<dynamic test>} for one of a
 *     {@code @TestFactory}'s cases
 * @param guarantee what the committed output showed: {@code exactly-once}, {@code at-least-once},
 *     {@code violated}, {@code not-applicable} (the armed fault point is not on this connector's path),
 *     or {@code failed-loudly} (the fault destroyed data the connector needed, and the job refused to
 *     finish without it, as 2PC-5 requires; like exactly-once, it does not weaken the connector's guarantee);
 *     {@code none} on a row without a check
 * @param recoveryMillis the longest time a resumed run took from start to the end of the job
 * @param passed whether this row's check held ({@code false} on a row without a check)
 * @param verdict how the case ended, the same on every row of the case
 * @param required whether the case counts for the report's guarantee: every case but {@code optional_...} ones
 * @param detail why the case errored or did not run, or why a check did not apply; empty otherwise
 */
public record CaseResult(String name, String rule, List<String> faults, int crashes, long records, int lost,
        int duplicated, int unexpected, int leftovers, long recoveryMillis, String guarantee, boolean passed,
        CaseVerdict verdict, boolean required, String detail) {

    /** The guarantee of a row without a check. */
    static final String NO_CHECK = "none";

    @JsonCreator
    public CaseResult {
        faults = faults == null ? List.of() : List.copyOf(faults);
        detail = detail == null ? "" : detail;
    }

    /** A check, as a case records it; the report sets the case's name and verdict when the suite ends. */
    public CaseResult(String name, String rule, List<String> faults, int crashes, long records, int lost,
            int duplicated, int unexpected, int leftovers, long recoveryMillis, String guarantee, boolean passed) {
        this(name, rule, faults, crashes, records, lost, duplicated, unexpected, leftovers, recoveryMillis, guarantee,
                passed, passed ? CaseVerdict.PASSED : CaseVerdict.VIOLATED, true, "");
    }

    /** The row of a case that made no check, or that ended without a verdict after its checks. */
    static CaseResult withoutCheck(String name, CaseVerdict verdict, boolean required, String detail) {
        return new CaseResult(name, "-", List.of(), 0, 0, 0, 0, 0, 0, 0, NO_CHECK, false, verdict, required, detail);
    }

    /** This check as a row of the case {@code caseName}, which ended {@code caseVerdict}. */
    CaseResult ofCase(String caseName, CaseVerdict caseVerdict, boolean caseRequired) {
        return new CaseResult(caseName, rule, faults, crashes, records, lost, duplicated, unexpected, leftovers,
                recoveryMillis, guarantee, passed, caseVerdict, caseRequired, detail);
    }

    /** This check, with why it did not apply. */
    CaseResult withDetail(String why) {
        return new CaseResult(name, rule, faults, crashes, records, lost, duplicated, unexpected, leftovers,
                recoveryMillis, guarantee, passed, verdict, required, why);
    }
}
