package dev.onceflow.runtime.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.runtime.api.BroadcastProcessFunction;
import dev.onceflow.runtime.api.BroadcastStream;
import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.DataStream;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventSerializer;
import dev.onceflow.spi.serialization.Serializers;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How declared steps become stages and channels, for linear jobs and jobs with a broadcast input. */
class JobPlanTest {

    private static final StateDescriptor.Map<String, String> RULES =
            StateDescriptor.map("rules", Serializers.STRING, Serializers.STRING);

    /** Passes the events on; the plan is all these tests look at. */
    static final class PassThrough extends BroadcastProcessFunction<Event, Event, Event> {
        @Override
        public void processElement(Event value, ReadOnlyContext context, Collector<Event> out) {
            out.collect(value);
        }

        @Override
        public void processBroadcastElement(Event value, Context context, Collector<Event> out) {
        }
    }

    private static DataStream<Event> source(StreamEnvironment env, String uid) {
        return env.fromSource(DatagenSource.builder().rows(10).build(), uid).uid(uid);
    }

    @Test
    void aLinearJobKeepsItsStagesFromTheSourceOn() {
        StreamEnvironment env = StreamEnvironment.create().setParallelism(2);
        source(env, "events").map(e -> e).uid("map")
                .keyBy(Event::key, Serializers.STRING).process(dev.onceflow.runtime.cli.CountEventsByKey::new).uid("count")
                .sinkTo(FileSystemSink.builder("/tmp/unused").build()).uid("files");

        JobPlan plan = env.plan();

        assertThat(plan.stages()).extracting(JobPlan.Stage::name).containsExactly("stage0", "stage1");
        assertThat(plan.stages().get(0).uids()).containsExactly("events", "map");
        assertThat(plan.stages().get(0).inputs()).isEmpty();
        assertThat(plan.stages().get(0).downstream()).isEqualTo(1);
        assertThat(plan.stages().get(1).uids()).containsExactly("count", "files");
        assertThat(plan.stages().get(1).inputs()).singleElement()
                .satisfies(input -> {
                    assertThat(input.stage()).isZero();
                    assertThat(input.firstChannel()).isZero();
                    assertThat(input.partitioning()).isInstanceOf(Transformation.Partitioning.Hash.class);
                });
        assertThat(plan.stages().get(1).downstream()).isEqualTo(-1);
    }

    @Test
    void aBroadcastInputIsASecondStageNumberedAfterTheFirstInputsChannels() {
        StreamEnvironment env = StreamEnvironment.create().setParallelism(3);
        BroadcastStream<Event> rules = source(env, "rules").parallelism(2).broadcast(RULES);
        source(env, "events").connect(rules).process(PassThrough::new).uid("apply")
                .sinkTo(FileSystemSink.builder("/tmp/unused").build()).uid("files");

        JobPlan plan = env.plan();

        assertThat(plan.stages()).extracting(JobPlan.Stage::uids)
                .containsExactly(List.of("events"), List.of("rules"), List.of("apply", "files"));
        assertThat(plan.sourceStages()).extracting(JobPlan.Stage::index).containsExactly(0, 1);
        assertThat(plan.stages().get(0).downstream()).isEqualTo(2);
        assertThat(plan.stages().get(1).downstream()).isEqualTo(2);
        List<JobPlan.Input> inputs = plan.stages().get(2).inputs();
        assertThat(inputs).hasSize(2);
        assertThat(inputs.get(0).stage()).isZero();
        assertThat(inputs.get(0).firstChannel()).isZero();
        assertThat(inputs.get(0).partitioning()).as("two stages cannot be chained: forward becomes round robin")
                .isInstanceOf(Transformation.Partitioning.Rebalance.class);
        assertThat(inputs.get(1).stage()).isEqualTo(1);
        assertThat(inputs.get(1).firstChannel()).as("after the 3 channels of the first input").isEqualTo(3);
        assertThat(inputs.get(1).partitioning()).isInstanceOf(Transformation.Partitioning.Broadcast.class);
    }

    @Test
    void aSourceThatDoesNotReachTheSinkIsRefusedByName() {
        StreamEnvironment env = StreamEnvironment.create();
        source(env, "forgotten").map(e -> e).uid("forgotten-map");
        source(env, "events").sinkTo(FileSystemSink.builder("/tmp/unused").build()).uid("files");

        assertThatThrownBy(env::plan)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("step 'forgotten' (forgotten), 'forgotten-map' (map) does not lead to the sink");
    }

    @Test
    void unalignedCheckpointsAreRefusedForAStepWithTwoInputs() {
        StreamEnvironment env = StreamEnvironment.create()
                .setCheckpointConfig(CheckpointConfig.defaults().withUnaligned(true));
        BroadcastStream<Event> rules = source(env, "rules").recordSerializer(EventSerializer.INSTANCE).broadcast(RULES);
        source(env, "events").recordSerializer(EventSerializer.INSTANCE).connect(rules).process(PassThrough::new)
                .uid("apply").sinkTo(FileSystemSink.builder("/tmp/unused").build()).uid("files");

        assertThatThrownBy(env::plan)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unaligned checkpoints are not supported for 'apply', a step with two inputs (connect);"
                        + " use aligned checkpoints for this job");
    }

    @Test
    void broadcastNeedsDistinctlyNamedStates() {
        StreamEnvironment env = StreamEnvironment.create();
        DataStream<Event> rules = source(env, "rules");

        assertThatThrownBy(rules::broadcast).hasMessageContaining("at least one broadcast state");
        assertThatThrownBy(() -> rules.broadcast(RULES, StateDescriptor.map("rules", Serializers.LONG, Serializers.LONG)))
                .hasMessage("broadcast state 'rules' is declared twice");
    }
}
