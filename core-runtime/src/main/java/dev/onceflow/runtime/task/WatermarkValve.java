package dev.onceflow.runtime.task;

import java.util.Arrays;

/**
 * Combines the watermarks of a task's input channels into the task's event time: the minimum
 * over the channels that are neither idle nor ended. It only ever moves forward: a channel that
 * becomes active again behind the current event time holds nothing back until it catches up.
 * When every channel still open is idle, the task is idle too, so it does not hold back the stage
 * after it.
 *
 * <p>Watermarks of a channel blocked by barrier alignment stay queued with its records, so event
 * time in a snapshot is always that of the records before the barrier.
 */
final class WatermarkValve {

    /** What the task does when its event time or its status changes. */
    interface Handler {
        void onWatermark(long watermark) throws Exception;

        void onStatus(boolean idle) throws Exception;
    }

    private final long[] watermarks;
    private final boolean[] idle;
    private final boolean[] ended;
    private long current = StreamElement.NO_TIMESTAMP;
    private boolean outputIdle;

    WatermarkValve(int channels) {
        this.watermarks = new long[channels];
        Arrays.fill(watermarks, StreamElement.NO_TIMESTAMP);
        this.idle = new boolean[channels];
        this.ended = new boolean[channels];
    }

    void onWatermark(int channel, long watermark, Handler handler) throws Exception {
        if (idle[channel]) {
            // A sender announces that it is active first; this is only a guard against one that does not.
            onStatus(channel, false, handler);
        }
        if (watermark > watermarks[channel]) {
            watermarks[channel] = watermark;
            advance(handler);
        }
    }

    void onStatus(int channel, boolean channelIdle, Handler handler) throws Exception {
        if (idle[channel] == channelIdle) {
            return;
        }
        idle[channel] = channelIdle;
        if (!channelIdle) {
            updateStatus(handler);
        }
        advance(handler);
        if (channelIdle) {
            updateStatus(handler);
        }
    }

    void onEnd(int channel, Handler handler) throws Exception {
        ended[channel] = true;
        advance(handler);
        updateStatus(handler);
    }

    /** The task's current event time, {@link StreamElement#NO_TIMESTAMP} before the first watermark. */
    long current() {
        return current;
    }

    private void advance(Handler handler) throws Exception {
        long min = Long.MAX_VALUE;
        boolean any = false;
        for (int i = 0; i < watermarks.length; i++) {
            if (!idle[i] && !ended[i]) {
                min = Math.min(min, watermarks[i]);
                any = true;
            }
        }
        // Nothing open and active: event time stays where it is (a stopped job does not jump to the
        // end of time; a bounded source sends the end of time itself before it ends).
        if (any && min > current) {
            current = min;
            handler.onWatermark(min);
        }
    }

    private void updateStatus(Handler handler) throws Exception {
        boolean anyOpen = false;
        boolean allIdle = true;
        for (int i = 0; i < idle.length; i++) {
            if (!ended[i]) {
                anyOpen = true;
                allIdle &= idle[i];
            }
        }
        boolean nowIdle = anyOpen && allIdle;
        if (nowIdle != outputIdle) {
            outputIdle = nowIdle;
            handler.onStatus(nowIdle);
        }
    }
}
