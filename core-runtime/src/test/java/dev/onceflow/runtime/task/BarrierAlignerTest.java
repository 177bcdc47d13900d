package dev.onceflow.runtime.task;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.checkpoint.CheckpointKind;
import dev.onceflow.runtime.config.CheckpointingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Barrier alignment decides what a snapshot contains. EXACTLY_ONCE: no record behind a barrier
 * reaches the state before the snapshot, because the barrier's channel is blocked until every
 * channel delivered its barrier. AT_LEAST_ONCE: nothing is ever blocked.
 */
class BarrierAlignerTest {

    private final List<Long> aligned = new ArrayList<>();
    private final BarrierAligner.Handler handler = barrier -> aligned.add(barrier.checkpointId());

    private static CheckpointBarrier barrier(long id) {
        return new CheckpointBarrier(id, 0, CheckpointKind.CHECKPOINT, false);
    }

    /**
     * Offers one record on every channel and returns the channels whose records the task can
     * read now; records of blocked channels stay queued.
     */
    private static Set<Integer> readableChannels(InputGate gate) throws InterruptedException {
        for (int channel = 0; channel < gate.channelCount(); channel++) {
            gate.put(channel, new StreamElement.Records(List.of("probe")));
        }
        Set<Integer> readable = new TreeSet<>();
        for (Object item = gate.take(0); item != null; item = gate.take(0)) {
            readable.add(((InputGate.Polled) item).channel());
        }
        return readable;
    }

    @Test
    void exactlyOnceBlocksEachChannelFromItsBarrierUntilAllBarriersArrived() throws Exception {
        InputGate gate = new InputGate(3, 16);
        BarrierAligner aligner = new BarrierAligner(gate, CheckpointingMode.EXACTLY_ONCE, "test");
        assertThat(readableChannels(gate)).containsExactly(0, 1, 2);

        aligner.onBarrier(0, barrier(1), handler);
        assertThat(readableChannels(gate)).containsExactly(1, 2);

        aligner.onBarrier(2, barrier(1), handler);
        assertThat(readableChannels(gate)).containsExactly(1);
        assertThat(aligned).as("no snapshot before the last barrier").isEmpty();

        aligner.onBarrier(1, barrier(1), handler);
        assertThat(aligned).containsExactly(1L);
        assertThat(readableChannels(gate)).as("all channels flow again after the snapshot").containsExactly(0, 1, 2);
    }

    @Test
    void atLeastOnceNeverBlocksAndSnapshotsAtTheLastBarrier() throws Exception {
        InputGate gate = new InputGate(3, 16);
        BarrierAligner aligner = new BarrierAligner(gate, CheckpointingMode.AT_LEAST_ONCE, "test");

        aligner.onBarrier(0, barrier(1), handler);
        assertThat(readableChannels(gate)).containsExactly(0, 1, 2);
        aligner.onBarrier(2, barrier(1), handler);
        assertThat(readableChannels(gate)).containsExactly(0, 1, 2);
        assertThat(aligned).isEmpty();

        aligner.onBarrier(1, barrier(1), handler);
        assertThat(aligned).containsExactly(1L);
        assertThat(readableChannels(gate)).containsExactly(0, 1, 2);
    }

    @Test
    void consecutiveCheckpointsAlignOneAfterTheOther() throws Exception {
        InputGate gate = new InputGate(2, 16);
        BarrierAligner aligner = new BarrierAligner(gate, CheckpointingMode.EXACTLY_ONCE, "test");

        for (long id = 1; id <= 3; id++) {
            aligner.onBarrier(1, barrier(id), handler);
            assertThat(readableChannels(gate)).containsExactly(0);
            aligner.onBarrier(0, barrier(id), handler);
            assertThat(readableChannels(gate)).containsExactly(0, 1);
        }

        assertThat(aligned).containsExactly(1L, 2L, 3L);
    }

    @Test
    void aNewerBarrierCancelsAnUnfinishedAlignment() throws Exception {
        InputGate gate = new InputGate(3, 16);
        BarrierAligner aligner = new BarrierAligner(gate, CheckpointingMode.EXACTLY_ONCE, "test");
        aligner.onBarrier(0, barrier(1), handler);
        assertThat(readableChannels(gate)).containsExactly(1, 2);

        aligner.onBarrier(1, barrier(2), handler);
        assertThat(readableChannels(gate)).as("checkpoint 1 is given up: channel 0 flows, channel 1 waits for 2")
                .containsExactly(0, 2);

        aligner.onBarrier(2, barrier(1), handler); // late barrier of the cancelled checkpoint
        assertThat(readableChannels(gate)).containsExactly(0, 2);
        assertThat(aligned).isEmpty();

        aligner.onBarrier(0, barrier(2), handler);
        aligner.onBarrier(2, barrier(2), handler);
        assertThat(aligned).containsExactly(2L);
        assertThat(readableChannels(gate)).containsExactly(0, 1, 2);
    }

    @Test
    void barriersOfACompletedAlignmentThatArriveAgainAreIgnored() throws Exception {
        InputGate gate = new InputGate(2, 16);
        BarrierAligner aligner = new BarrierAligner(gate, CheckpointingMode.EXACTLY_ONCE, "test");
        aligner.onBarrier(0, barrier(4), handler);
        aligner.onBarrier(1, barrier(4), handler);

        aligner.onBarrier(0, barrier(4), handler);
        aligner.onBarrier(1, barrier(3), handler);

        assertThat(aligned).containsExactly(4L);
        assertThat(readableChannels(gate)).containsExactly(0, 1);
    }

    @Test
    void aSecondBarrierOnTheSameChannelDoesNotCountTwice() throws Exception {
        InputGate gate = new InputGate(2, 16);
        BarrierAligner aligner = new BarrierAligner(gate, CheckpointingMode.AT_LEAST_ONCE, "test");

        aligner.onBarrier(0, barrier(1), handler);
        aligner.onBarrier(0, barrier(1), handler);

        assertThat(aligned).isEmpty();
        aligner.onBarrier(1, barrier(1), handler);
        assertThat(aligned).containsExactly(1L);
    }

    @Test
    void abortingTheCheckpointReleasesBlockedChannelsAndIgnoresItsRemainingBarriers() throws Exception {
        InputGate gate = new InputGate(3, 16);
        BarrierAligner aligner = new BarrierAligner(gate, CheckpointingMode.EXACTLY_ONCE, "test");
        aligner.onBarrier(0, barrier(1), handler);
        aligner.onBarrier(1, barrier(1), handler);

        aligner.abort(1);
        assertThat(readableChannels(gate)).containsExactly(0, 1, 2);

        aligner.onBarrier(2, barrier(1), handler);
        assertThat(aligned).isEmpty();
        assertThat(readableChannels(gate)).containsExactly(0, 1, 2);

        aligner.onBarrier(0, barrier(2), handler);
        aligner.onBarrier(1, barrier(2), handler);
        aligner.onBarrier(2, barrier(2), handler);
        assertThat(aligned).containsExactly(2L);
    }

    @Test
    void abortingAnotherCheckpointDoesNotDisturbTheCurrentAlignment() throws Exception {
        InputGate gate = new InputGate(2, 16);
        BarrierAligner aligner = new BarrierAligner(gate, CheckpointingMode.EXACTLY_ONCE, "test");
        aligner.onBarrier(0, barrier(5), handler);

        aligner.abort(4);

        assertThat(readableChannels(gate)).containsExactly(1);
        aligner.onBarrier(1, barrier(5), handler);
        assertThat(aligned).containsExactly(5L);
    }

    @Test
    void endedChannelsAreNotWaitedFor() throws Exception {
        InputGate gate = new InputGate(3, 16);
        BarrierAligner aligner = new BarrierAligner(gate, CheckpointingMode.EXACTLY_ONCE, "test");
        aligner.onEnd(2);

        aligner.onBarrier(0, barrier(1), handler);
        assertThat(aligned).isEmpty();
        aligner.onBarrier(1, barrier(1), handler);

        assertThat(aligned).containsExactly(1L);
    }

    @Test
    void aSingleChannelAlignsAtOnce() throws Exception {
        InputGate gate = new InputGate(1, 16);
        BarrierAligner aligner = new BarrierAligner(gate, CheckpointingMode.EXACTLY_ONCE, "test");

        aligner.onBarrier(0, barrier(1), handler);

        assertThat(aligned).containsExactly(1L);
        assertThat(readableChannels(gate)).containsExactly(0);
    }

    /**
     * A channel that delivered barrier n and then ended must count once, not twice: otherwise the
     * snapshot is taken before the barrier of another channel arrived, and that channel's records
     * before the barrier are missing from the state while its upstream already snapshotted past
     * them (lost on restore).
     */
    @Test
    void aChannelThatEndsAfterItsBarrierIsNotCountedTwice() throws Exception {
        InputGate gate = new InputGate(3, 16);
        BarrierAligner aligner = new BarrierAligner(gate, CheckpointingMode.AT_LEAST_ONCE, "test");
        aligner.onBarrier(0, barrier(1), handler);
        aligner.onEnd(0);

        aligner.onBarrier(1, barrier(1), handler);

        assertThat(aligned).as("channel 2 has not delivered barrier 1 yet").isEmpty();
        aligner.onBarrier(2, barrier(1), handler);
        assertThat(aligned).containsExactly(1L);
    }
}
