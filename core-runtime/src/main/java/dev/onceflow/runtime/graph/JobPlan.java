package dev.onceflow.runtime.graph;

import dev.onceflow.runtime.state.StateBackend;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The physical plan: the job's steps grouped into stages. A stage is a chain of steps that run
 * in one task per parallel subtask, connected by method calls; stages are connected by channels.
 * A new stage starts at every keyBy or rebalance and wherever the parallelism changes.
 *
 * @param stateBackend where the keyed operators of the job keep their state
 */
public record JobPlan(List<Stage> stages, int maxParallelism, StateBackend stateBackend) {

    /** A chain of steps, run by {@code parallelism} tasks. */
    public record Stage(int index, String name, int parallelism, List<Transformation> chain,
            Transformation.Partitioning inputPartitioning) {

        public List<String> uids() {
            return chain.stream().map(Transformation::uid).toList();
        }
    }

    /**
     * Groups a linear pipeline, from its sink back to its source, into stages.
     *
     * @throws IllegalArgumentException if uids repeat or a parallelism exceeds the max parallelism
     */
    public static JobPlan of(Transformation sink, int defaultParallelism, int maxParallelism,
            StateBackend stateBackend) {
        List<Transformation> steps = new ArrayList<>();
        for (Transformation t = sink; t != null; t = t.input()) {
            steps.add(0, t);
        }
        if (steps.get(0).kind() != Transformation.Kind.SOURCE) {
            throw new IllegalArgumentException("a job must start with a source");
        }
        Set<String> uids = new HashSet<>();
        List<Stage> stages = new ArrayList<>();
        List<Transformation> chain = new ArrayList<>();
        int chainParallelism = 0;
        Transformation.Partitioning chainInput = new Transformation.Partitioning.Forward();
        for (Transformation step : steps) {
            if (!uids.add(step.uid())) {
                throw new IllegalArgumentException("uid '" + step.uid() + "' is used twice; uids must be unique in a job");
            }
            int parallelism = step.parallelism() > 0 ? step.parallelism() : defaultParallelism;
            if (parallelism > maxParallelism) {
                throw new IllegalArgumentException("parallelism " + parallelism + " of '" + step.uid()
                        + "' exceeds the max parallelism " + maxParallelism);
            }
            boolean forward = step.partitioning() instanceof Transformation.Partitioning.Forward;
            if (!chain.isEmpty() && (!forward || parallelism != chainParallelism)) {
                stages.add(new Stage(stages.size(), "stage" + stages.size(), chainParallelism, List.copyOf(chain), chainInput));
                chain.clear();
                chainInput = forward ? new Transformation.Partitioning.Rebalance() : step.partitioning();
            }
            chain.add(step);
            chainParallelism = parallelism;
        }
        stages.add(new Stage(stages.size(), "stage" + stages.size(), chainParallelism, List.copyOf(chain), chainInput));
        return new JobPlan(List.copyOf(stages), maxParallelism, stateBackend);
    }

    /**
     * Unaligned checkpoints store the records in flight between stages: every stage but the last
     * must say how its output records are written.
     *
     * @throws IllegalArgumentException naming the step without a record serializer
     */
    public void requireRecordSerializers() {
        for (int i = 0; i < stages.size() - 1; i++) {
            List<Transformation> chain = stages.get(i).chain();
            Transformation last = chain.get(chain.size() - 1);
            if (last.recordSerializer() == null) {
                throw new IllegalArgumentException("unaligned checkpoints store the records in flight from '"
                        + last.uid() + "' to '" + stages.get(i + 1).uids().get(0) + "': declare how they are written"
                        + " with recordSerializer(...) on the stream of '" + last.uid() + "'");
            }
        }
    }

    /** Every operator uid of the job. */
    public Set<String> uids() {
        Set<String> all = new HashSet<>();
        stages.forEach(s -> all.addAll(s.uids()));
        return all;
    }

    /** The source step. */
    public Transformation source() {
        return stages.get(0).chain().get(0);
    }
}
