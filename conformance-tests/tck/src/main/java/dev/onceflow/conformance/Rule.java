package dev.onceflow.conformance;

/**
 * The rules of {@code docs/spec.md} that the suite checks, with what a connector author should
 * look at when one fails. Test names carry the rule id ({@code required_2pc4_...}).
 */
public enum Rule {
    TWO_PC_1("2PC-1", "Nothing written may become visible to a committed reader before commit().",
            "preCommit() must only flush/prepare; make data visible in commit(), never in write() or preCommit()."),
    TWO_PC_2("2PC-2", "A pre-committed transaction survives the death of the writer.",
            "preCommit() must make the transaction durable (fsync, PREPARE) and the handle must hold all that commit needs."),
    TWO_PC_3("2PC-3", "A commit, once started, ends committed: a failed commit is retried or fails the job, never dropped.",
            "commit() must throw when the transaction did not commit, never report success for it; a retried commit() of a"
            + " handle must commit it (or find it committed). A job whose commits keep failing must fail, not exit 0."),
    TWO_PC_4("2PC-4", "Committing an already committed handle MUST succeed without effect.",
            "commit()/recoverAndCommit() must detect 'already committed' (final file exists, unknown prepared id) and do nothing."),
    TWO_PC_5("2PC-5", "recoverAndCommit() commits restored handles, idempotently, and never reports success for lost data.",
            "recoverAndCommit() runs in a new process with only the handle: look up the transaction by its handle."),
    TWO_PC_7("2PC-7", "abortLingering() aborts every transaction of this sink that the restored checkpoint does not know of.",
            "abortLingering() must find transactions by their deterministic ids (subtask, checkpoint id > restored) and abort them."),
    IDEM_1("IDEM-1", "An idempotent sink's writes are keyed by the record: writing a record twice leaves the result of writing it once.",
            "Make write() an upsert keyed by an id derived only from the record; a sink that appends must implement AtLeastOnceSink, which promises no more than at-least-once."),
    ALO_1("ALO-1", "An at-least-once sink loses nothing: every record id appears at least once after any crash (duplicates allowed).",
            "flush() must make every record written so far durable before it returns, and fail if one could not be written; it runs at every barrier."),
    EO_1("EO-1", "With EXACTLY_ONCE mode every record id appears exactly once in the committed output after any crash.",
            "Check that commit happens only in notifyCheckpointComplete, that restored handles are committed, and that the open transaction of the restored checkpoint is aborted."),
    EO_2("EO-2", "Keyed state reflects every record exactly once after any crash.",
            "Wrong running counts with correct ids point at the runtime's state restore, or at a source replaying from the wrong position."),
    EO_6("EO-6", "A fresh start against a destination an earlier run of the same job and sink wrote to delivers every"
            + " record of the new run and leaves the earlier run's committed output as it was.",
            "Transaction ids, committer markers and file names repeat across runs of one job and sink (checkpoint ids start"
            + " again at 1 when the checkpoint directory is new): never take a marker you find for your own commit unless the"
            + " history this attempt restored wrote it: on a fresh start (no restoredCheckpointId) every marker is an earlier run's."),
    EO_3("EO-3", "A finished bounded job has committed everything.",
            "The final checkpoint must commit; check that the writer commits on the last notification before close()."),
    EO_4("EO-4", "Nothing is left behind: no open or prepared transaction, no in-progress file.",
            "Abort the open transaction on close and in recoverAndAbort(); clean up lingering ones in abortLingering()."),
    SRC_1("SRC-1", "After a restore a reader emits exactly the records after its restored position.",
            "snapshotState() must return positions just after the last emitted record; addSplits() must resume from them."),
    SRC_3("SRC-3", "Every split is in exactly one snapshot; splits added while running are read from their start.",
            "The enumerator's state must hold exactly the unassigned splits, and discovery must not re-add assigned ones."),
    SRC_5("SRC-5", "Split positions survive the split serializer: round trip equal, unknown versions refused, replay exact.",
            "serialize() must write every field of the position; deserialize() must check the version and fail on unknown ones."),
    SRC_4("SRC-4", "A bounded source ends once its splits are read.",
            "Return END_OF_INPUT from pollNext() after notifyNoMoreSplits() and once every split is exhausted.");

    private final String id;
    private final String statement;
    private final String hint;

    Rule(String id, String statement, String hint) {
        this.id = id;
        this.statement = statement;
        this.hint = hint;
    }

    public String id() {
        return id;
    }

    public String statement() {
        return statement;
    }

    public String hint() {
        return hint;
    }
}
