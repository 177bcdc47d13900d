package dev.onceflow.conformance;

import java.util.List;

/**
 * One case of a conformance run, as the report shows it.
 *
 * @param guarantee what the committed output showed: {@code exactly-once}, {@code at-least-once},
 *     {@code violated}, {@code not-applicable} (the armed fault point is not on this connector's path),
 *     or {@code failed-loudly} (the fault destroyed data the connector needed, and the job refused to
 *     finish without it, as 2PC-5 requires; like exactly-once, it does not weaken the connector's guarantee)
 * @param recoveryMillis the longest time a resumed run took from start to the end of the job
 */
public record CaseResult(String name, String rule, List<String> faults, int crashes, long records, int lost,
        int duplicated, int unexpected, int leftovers, long recoveryMillis, String guarantee, boolean passed) {
}
