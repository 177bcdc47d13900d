package dev.onceflow.runtime.task;

import dev.onceflow.runtime.config.CheckpointingMode;
import dev.onceflow.runtime.operator.KeyedProcessOperator;
import dev.onceflow.runtime.operator.StreamOperator;
import dev.onceflow.runtime.operator.TaskTime;
import dev.onceflow.runtime.operator.TwoInputStreamOperator;
import dev.onceflow.runtime.state.RestoredState;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A subtask of a stage after the first: takes batches, watermarks, barriers and mail from its
 * input gate. Ends when every input channel ended and the terminal checkpoint completed.
 */
public final class ProcessingTask extends Task {

    private final BarrierAligner aligner;
    /** Records in flight of unaligned checkpoints; null with aligned ones. */
    private final InFlightRecorder recorder;
    private final InFlightRecords inFlightRecords;
    private final WatermarkValve valve;
    private final WatermarkValve.Handler eventTime;
    /** The first channel of the second input; the channel count if the task has one input. */
    private final int secondInputChannel;
    private int endedChannels;

    public ProcessingTask(String stageName, int subtask, int parallelism, List<String> uids, InputGate gate,
            List<StreamOperator<Object>> chain, RecordWriter writer, TaskEnvironment environment,
            Function<String, RestoredState> restoredState, CheckpointingMode mode, boolean unalignedCheckpoints,
            InFlightRecords inFlightRecords, int secondInputChannel) {
        super(stageName, subtask, parallelism, uids, gate, chain, writer, environment, restoredState,
                unalignedCheckpoints);
        if (unalignedCheckpoints && inFlightRecords == null) {
            throw new IllegalArgumentException("unaligned checkpoints of " + stageName + " need a record serializer");
        }
        this.aligner = new BarrierAligner(gate, mode, stageName + "[" + subtask + "]");
        this.recorder = unalignedCheckpoints ? new InFlightRecorder(gate.channelCount()) : null;
        this.inFlightRecords = inFlightRecords;
        if (secondInputChannel < gate.channelCount() && !(chain.get(0) instanceof TwoInputStreamOperator)) {
            throw new IllegalArgumentException(stageName + " has two inputs, but its first step "
                    + chain.get(0).getClass().getName() + " takes one");
        }
        this.secondInputChannel = secondInputChannel;
        this.valve = new WatermarkValve(gate.channelCount());
        this.eventTime = new WatermarkValve.Handler() {
            @Override
            public void onWatermark(long watermark) throws Exception {
                chain.get(0).processWatermark(watermark);
            }

            @Override
            public void onStatus(boolean idle) throws Exception {
                if (writer != null) {
                    writer.broadcast(idle ? StreamElement.WatermarkStatus.IDLE : StreamElement.WatermarkStatus.ACTIVE);
                }
            }
        };
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        aligner.abort(checkpointId);
        if (recorder != null) {
            recorder.abort(checkpointId);
        }
        super.notifyCheckpointAborted(checkpointId);
    }

    @Override
    protected CompletableFuture<List<List<StreamElement.Records>>> recordedInFlight(long checkpointId) {
        return recorder.recorded(checkpointId);
    }

    @Override
    protected InFlightRecords inFlightRecords() {
        return inFlightRecords;
    }

    /**
     * Processes the records the restored checkpoint found in flight into this task, before any
     * channel: they were sent before the barriers the upstream tasks restored from.
     */
    private void replayRestoredInFlight(StreamOperator<Object> head, TaskTime time) throws Exception {
        List<byte[]> entries = restoredInFlight();
        if (entries.isEmpty()) {
            return;
        }
        if (inFlightRecords == null) {
            throw new IllegalStateException("the restored checkpoint holds records in flight into " + uids.get(0)
                    + ", but the job declares no record serializer for them (DataStream.recordSerializer)");
        }
        List<InFlightRecords.Timed> replay = inFlightRecords.decode(entries, subtask, parallelism);
        for (InFlightRecords.Timed timed : replay) {
            time.setTimestamp(timed.timestamp());
            head.processElement(timed.record());
        }
        records += replay.size();
    }

    @Override
    @SuppressWarnings("unchecked")
    protected void runLoop() throws Exception {
        StreamOperator<Object> head = chain.get(0);
        TaskTime time = head.context().time();
        long idleWait = TimeUnit.MILLISECONDS.toNanos(100);
        replayRestoredInFlight(head, time);
        while (!cancelled()) {
            if (endedChannels == gate.channelCount() && terminalCompleted()) {
                break;
            }
            Object item = gate.take(0);
            if (item == null) {
                // Nothing queued: hand partial batches downstream before waiting.
                if (writer != null) {
                    writer.flushAll();
                }
                item = gate.take(idleWait);
                if (item == null) {
                    continue;
                }
            }
            if (item instanceof Runnable mail) {
                mail.run();
                continue;
            }
            if (item instanceof InputGate.PriorityBarrier priority) {
                recorder.onBarrier(priority.channel(), priority.barrier(), priority.overtaken(),
                        barrier -> performCheckpoint(barrier, 0));
                continue;
            }
            InputGate.Polled polled = (InputGate.Polled) item;
            StreamElement element = polled.element();
            if (element instanceof StreamElement.Records batch) {
                if (recorder != null) {
                    recorder.onRecords(polled.channel(), batch);
                }
                List<Object> list = batch.records();
                aligner.onRecords(polled.channel(), list.size());
                if (polled.channel() < secondInputChannel && batch.keys() != null
                        && head instanceof KeyedProcessOperator<?, ?, ?> keyed) {
                    Object[] keys = batch.keys();
                    int[] groups = batch.keyGroups();
                    for (int i = 0; i < list.size(); i++) {
                        time.setTimestamp(batch.timestamp(i));
                        ((KeyedProcessOperator<Object, Object, ?>) keyed).processElement(list.get(i), keys[i], groups[i]);
                    }
                } else if (polled.channel() < secondInputChannel) {
                    for (int i = 0; i < list.size(); i++) {
                        time.setTimestamp(batch.timestamp(i));
                        head.processElement(list.get(i));
                    }
                } else {
                    TwoInputStreamOperator<Object, Object> twoInputs = (TwoInputStreamOperator<Object, Object>) head;
                    for (int i = 0; i < list.size(); i++) {
                        time.setTimestamp(batch.timestamp(i));
                        twoInputs.processElement2(list.get(i));
                    }
                }
                records += list.size();
            } else if (element instanceof StreamElement.Watermark watermark) {
                valve.onWatermark(polled.channel(), watermark.timestamp(), eventTime);
            } else if (element instanceof StreamElement.WatermarkStatus status) {
                valve.onStatus(polled.channel(), status == StreamElement.WatermarkStatus.IDLE, eventTime);
            } else if (element instanceof StreamElement.Barrier barrier) {
                aligner.onBarrier(polled.channel(), barrier.barrier(),
                        aligned -> performCheckpoint(aligned, aligner.lastAlignmentNanos()));
            } else {
                if (recorder != null) {
                    recorder.onEnd(polled.channel());
                }
                aligner.onEnd(polled.channel());
                valve.onEnd(polled.channel(), eventTime);
                endedChannels++;
            }
        }
        for (StreamOperator<Object> operator : chain) {
            operator.endInput();
        }
        if (writer != null) {
            writer.broadcast(StreamElement.EndOfData.INSTANCE);
        }
    }
}
