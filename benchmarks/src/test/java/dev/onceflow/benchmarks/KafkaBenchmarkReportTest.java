package dev.onceflow.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaBenchmarkReportTest {

    @Test
    void withoutThePlainLoopTheRatioColumnSaysSoAndTheFlinkTargetIsStillJudged() {
        Map<KafkaBenchmark.Config, List<Double>> throughput = new LinkedHashMap<>();
        throughput.put(KafkaBenchmark.Config.EXACTLY_ONCE, List.of(500_000.0, 600_000.0, 700_000.0));
        throughput.put(KafkaBenchmark.Config.FLINK, List.of(300_000.0, 400_000.0, 410_000.0));
        Map<KafkaBenchmark.Config, long[]> latency = Map.of(
                KafkaBenchmark.Config.EXACTLY_ONCE, new long[] {500, 1_013},
                KafkaBenchmark.Config.FLINK, new long[] {540, 1_030});

        String report = KafkaBenchmark.report(throughput, latency, 2_000_000, 20_000);

        assertThat(report).doesNotContain("NaN");
        assertThat(report).contains("600,000        -       500     1,013");
        assertThat(report).contains("MET (ratio 1.500; p99 1013 ms vs 1030 ms)");
    }

    @Test
    void withThePlainLoopEveryRowHasItsRatio() {
        Map<KafkaBenchmark.Config, List<Double>> throughput = new LinkedHashMap<>();
        throughput.put(KafkaBenchmark.Config.PLAIN, List.of(800_000.0));
        throughput.put(KafkaBenchmark.Config.EXACTLY_ONCE, List.of(600_000.0));

        String report = KafkaBenchmark.report(throughput, Map.of(), 2_000_000, 20_000);

        assertThat(report).contains("600,000    0.750").contains("exactly-once at 1 s >= ");
    }
}
