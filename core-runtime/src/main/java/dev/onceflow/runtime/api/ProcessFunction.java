package dev.onceflow.runtime.api;

import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.StateDescriptor;

/**
 * Processes the records of a (not keyed) stream one at a time, with operator state: lists that
 * belong to the parallel subtask, not to a key. One instance per subtask and attempt, called on its
 * task thread only. Keep in a field what changes per record, and bring the lists up to date in
 * {@link #snapshotState}: the runtime writes them right after it.
 *
 * <p>The two kinds of list differ only when a checkpoint or savepoint is restored at another
 * parallelism:
 *
 * <table>
 * <caption>operator state on restore</caption>
 * <tr><th></th><th>same parallelism</th><th>another parallelism</th></tr>
 * <tr><td>{@link OperatorStateContext#getListState list state}</td><td>each subtask its own entries</td>
 *     <td>all entries of all former subtasks, spread round robin: each entry to exactly one subtask</td></tr>
 * <tr><td>{@link OperatorStateContext#getUnionListState union list state}</td>
 *     <td colspan="2">every subtask gets all entries of all former subtasks, in subtask order</td></tr>
 * </table>
 *
 * <p>List state suits work that can be split, such as offsets or pending items; union list state
 * suits what every subtask must know to pick its part, such as the whole assignment.
 */
public abstract class ProcessFunction<IN, OUT> {

    /** Called once before the first record, after the state was restored; register state here. */
    public void open(OperatorStateContext context) throws Exception {
    }

    public abstract void processElement(IN value, Collector<OUT> out) throws Exception;

    /** Called on the task thread at every barrier, just before the lists are written. */
    public void snapshotState(long checkpointId) throws Exception {
    }

    /** Called when the job finishes or fails. */
    public void close() throws Exception {
    }

    /** Registration of operator state; the returned lists stay valid for the life of the function. */
    public interface OperatorStateContext {

        int subtaskIndex();

        int parallelism();

        /** Whether this attempt started from a checkpoint or savepoint. */
        boolean isRestored();

        /** A list split over the subtasks on rescaling (see the table above). */
        <T> ListState<T> getListState(StateDescriptor.List<T> descriptor);

        /** A list every subtask gets whole on restore (see the table above). */
        <T> ListState<T> getUnionListState(StateDescriptor.List<T> descriptor);
    }
}
