package dev.onceflow.runtime.task;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a task's event time follows its input channels: the lowest active one, never backwards. */
class WatermarkValveTest {

    private final List<String> emitted = new ArrayList<>();
    private final WatermarkValve.Handler handler = new WatermarkValve.Handler() {
        @Override
        public void onWatermark(long watermark) {
            emitted.add("wm " + watermark);
        }

        @Override
        public void onStatus(boolean idle) {
            emitted.add(idle ? "idle" : "active");
        }
    };

    @Test
    void eventTimeIsTheLowestWatermarkOfTheChannelsAndOnlyMovesForward() throws Exception {
        WatermarkValve valve = new WatermarkValve(3);

        valve.onWatermark(0, 100, handler);
        valve.onWatermark(1, 50, handler);
        assertThat(emitted).as("channel 2 has sent nothing yet").isEmpty();
        valve.onWatermark(2, 70, handler);
        valve.onWatermark(1, 90, handler);
        valve.onWatermark(1, 80, handler);
        valve.onWatermark(2, 200, handler);
        valve.onWatermark(1, 150, handler);

        assertThat(emitted).containsExactly("wm 50", "wm 70", "wm 90", "wm 100");
        assertThat(valve.current()).isEqualTo(100);
    }

    @Test
    void anIdleChannelHoldsNothingBackAndACatchingUpOneNothingBackwards() throws Exception {
        WatermarkValve valve = new WatermarkValve(2);
        valve.onWatermark(0, 10, handler);
        valve.onWatermark(1, 10, handler);
        valve.onWatermark(0, 500, handler);

        valve.onStatus(1, true, handler);
        valve.onStatus(1, false, handler);
        valve.onWatermark(1, 300, handler);
        valve.onWatermark(1, 600, handler);
        valve.onWatermark(0, 700, handler);

        assertThat(emitted).containsExactly("wm 10", "wm 500", "wm 600");
    }

    @Test
    void theTaskIsIdleWhenEveryOpenChannelIsAndAnEndedChannelNeverHoldsBack() throws Exception {
        WatermarkValve valve = new WatermarkValve(2);
        valve.onWatermark(0, 5, handler);
        valve.onWatermark(1, 7, handler);

        valve.onEnd(0, handler);
        valve.onStatus(1, true, handler);
        valve.onWatermark(1, 9, handler);
        valve.onEnd(1, handler);

        assertThat(emitted).containsExactly("wm 5", "wm 7", "idle", "active", "wm 9");
        assertThat(valve.current()).as("no jump to the end of time when every channel ended").isEqualTo(9);
    }
}
