package dev.onceflow.runtime.graph;

import dev.onceflow.runtime.state.StateBackend;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The physical plan: the job's steps grouped into stages. A stage is a chain of steps that run
 * in one task per parallel subtask, connected by method calls; stages are connected by channels.
 * A new stage starts at every keyBy or rebalance, wherever the parallelism changes, and at every
 * step with two inputs.
 *
 * <p>A job is a tree: every stage feeds at most one other stage, the last stage ends in the sink,
 * and a stage has no input (it starts with a source), one, or two (it starts with a two-input step).
 * Stages are listed so that every stage comes after the stages it reads from; a linear pipeline
 * keeps the numbering it always had ({@code stage0} the source's).
 *
 * @param stateBackend where the keyed operators of the job keep their state
 */
public record JobPlan(List<Stage> stages, int maxParallelism, StateBackend stateBackend) {

    /**
     * One input of a stage: the channels from every subtask of {@code stage}. A task's input gate
     * numbers the channels of its inputs one after the other, so input {@code k}'s subtask {@code s}
     * writes to channel {@code firstChannel + s}.
     *
     * @param stage the index of the upstream stage
     * @param partitioning how its records are spread over this stage's subtasks
     * @param firstChannel the gate channel of the upstream stage's subtask 0
     */
    public record Input(int stage, Transformation.Partitioning partitioning, int firstChannel) {
    }

    /**
     * A chain of steps, run by {@code parallelism} tasks.
     *
     * @param inputs the stages this one reads, in input order (empty for a source's stage)
     * @param downstream the index of the stage this one feeds, or -1 for the stage with the sink
     */
    public record Stage(int index, String name, int parallelism, List<Transformation> chain, List<Input> inputs,
            int downstream) {

        public List<String> uids() {
            return chain.stream().map(Transformation::uid).toList();
        }

        /** Whether the stage starts with a source. */
        public boolean isSource() {
            return inputs.isEmpty();
        }
    }

    /**
     * Groups the steps that lead to {@code sink} into stages.
     *
     * @throws IllegalArgumentException if uids repeat, a parallelism exceeds the max parallelism, or
     *     a branch does not start with a source
     */
    public static JobPlan of(Transformation sink, int defaultParallelism, int maxParallelism,
            StateBackend stateBackend) {
        Builder builder = new Builder(defaultParallelism, maxParallelism);
        builder.stagesEndingWith(sink);
        return new JobPlan(builder.build(), maxParallelism, stateBackend);
    }

    /**
     * Unaligned checkpoints store the records in flight between stages: every stage but the last
     * must say how its output records are written. Stages with two inputs do not store their records
     * in flight yet, so a job with one cannot take unaligned checkpoints.
     *
     * @throws IllegalArgumentException naming the step without a record serializer, or the two-input step
     */
    public void requireRecordSerializers() {
        for (Stage stage : stages) {
            if (stage.inputs().size() > 1) {
                throw new IllegalArgumentException("unaligned checkpoints are not supported for '" + stage.uids().get(0)
                        + "', a step with two inputs (connect); use aligned checkpoints for this job");
            }
            if (stage.downstream() < 0) {
                continue;
            }
            Transformation last = stage.chain().get(stage.chain().size() - 1);
            if (last.recordSerializer() == null) {
                throw new IllegalArgumentException("unaligned checkpoints store the records in flight from '"
                        + last.uid() + "' to '" + stages.get(stage.downstream()).uids().get(0)
                        + "': declare how they are written with recordSerializer(...) on the stream of '"
                        + last.uid() + "'");
            }
        }
    }

    /** Every operator uid of the job, the sources' dead-letter sinks included. */
    public Set<String> uids() {
        Set<String> all = new HashSet<>();
        stages.forEach(s -> all.addAll(s.uids()));
        for (Transformation step : steps()) {
            if (step.deadLetters() != null) {
                all.add(step.deadLetters().uid());
            }
        }
        return all;
    }

    /** The stages that start with a source, in stage order. */
    public List<Stage> sourceStages() {
        return stages.stream().filter(Stage::isSource).toList();
    }

    /** Every step of the plan, in stage order. */
    public List<Transformation> steps() {
        return stages.stream().flatMap(s -> s.chain().stream()).toList();
    }

    /** Collects stages from the sink back to the sources, inputs before the stage that reads them. */
    private static final class Builder {

        private final int defaultParallelism;
        private final int maxParallelism;
        private final Set<String> uids = new HashSet<>();
        private final List<PendingStage> stages = new ArrayList<>();

        Builder(int defaultParallelism, int maxParallelism) {
            this.defaultParallelism = defaultParallelism;
            this.maxParallelism = maxParallelism;
        }

        /** A stage before its channels are numbered. */
        private record PendingStage(int parallelism, List<Transformation> chain, List<PendingInput> inputs) {
        }

        private record PendingInput(int stage, Transformation.Partitioning partitioning) {
        }

        /**
         * Adds the stages of the branch that ends with {@code last} (and of the branches it reads)
         * and returns the index of the stage that ends with {@code last}.
         */
        int stagesEndingWith(Transformation last) {
            List<Transformation> steps = new ArrayList<>();
            Transformation step = last;
            while (true) {
                steps.add(0, step);
                if (step.kind() == Transformation.Kind.SOURCE || step.input2() != null) {
                    break;
                }
                step = step.input();
                if (step == null) {
                    throw new IllegalArgumentException("a job must start with a source");
                }
            }
            Transformation head = steps.get(0);
            List<PendingInput> headInputs = List.of();
            if (head.input2() != null) {
                // Two upstream stages cannot be chained into one task: a forward input becomes a rebalance.
                int first = stagesEndingWith(head.input());
                int second = stagesEndingWith(head.input2());
                headInputs = List.of(new PendingInput(first, channelPartitioning(head.partitioning())),
                        new PendingInput(second, channelPartitioning(head.partitioning2())));
            }
            List<Transformation> chain = new ArrayList<>();
            List<PendingInput> chainInputs = headInputs;
            int chainParallelism = 0;
            for (Transformation t : steps) {
                if (!uids.add(t.uid())) {
                    throw new IllegalArgumentException("uid '" + t.uid() + "' is used twice; uids must be unique in a job");
                }
                if (t.deadLetters() != null && !uids.add(t.deadLetters().uid())) {
                    throw new IllegalArgumentException("uid '" + t.deadLetters().uid()
                            + "' is used twice; uids must be unique in a job");
                }
                int parallelism = t.parallelism() > 0 ? t.parallelism() : defaultParallelism;
                if (parallelism > maxParallelism) {
                    throw new IllegalArgumentException("parallelism " + parallelism + " of '" + t.uid()
                            + "' exceeds the max parallelism " + maxParallelism);
                }
                boolean forward = t.partitioning() instanceof Transformation.Partitioning.Forward;
                if (!chain.isEmpty() && (!forward || parallelism != chainParallelism)) {
                    stages.add(new PendingStage(chainParallelism, List.copyOf(chain), chainInputs));
                    chainInputs = List.of(new PendingInput(stages.size() - 1, channelPartitioning(t.partitioning())));
                    chain.clear();
                }
                chain.add(t);
                chainParallelism = parallelism;
            }
            stages.add(new PendingStage(chainParallelism, List.copyOf(chain), chainInputs));
            return stages.size() - 1;
        }

        private static Transformation.Partitioning channelPartitioning(Transformation.Partitioning partitioning) {
            return partitioning instanceof Transformation.Partitioning.Forward
                    ? new Transformation.Partitioning.Rebalance() : partitioning;
        }

        List<Stage> build() {
            int[] downstream = new int[stages.size()];
            java.util.Arrays.fill(downstream, -1);
            for (int i = 0; i < stages.size(); i++) {
                for (PendingInput input : stages.get(i).inputs()) {
                    downstream[input.stage()] = i;
                }
            }
            List<Stage> result = new ArrayList<>();
            for (int i = 0; i < stages.size(); i++) {
                PendingStage pending = stages.get(i);
                List<Input> inputs = new ArrayList<>();
                int channel = 0;
                for (PendingInput input : pending.inputs()) {
                    inputs.add(new Input(input.stage(), input.partitioning(), channel));
                    channel += stages.get(input.stage()).parallelism();
                }
                result.add(new Stage(i, "stage" + i, pending.parallelism(), pending.chain(), List.copyOf(inputs),
                        downstream[i]));
            }
            return List.copyOf(result);
        }
    }
}
