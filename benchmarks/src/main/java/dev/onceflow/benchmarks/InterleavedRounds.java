package dev.onceflow.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * How the connector benchmarks measure: one warm-up run of every configuration (not counted),
 * then rounds that run every configuration once, interleaved, so drift in the machine hits all of
 * them alike; medians summarize the rounds, and ratios compare them with a baseline measured in
 * the same run.
 *
 * <p>Odd rounds run the configurations in the given order, even rounds in reverse, so that no
 * configuration always runs right after the same other one: on the 2-core build machines a run
 * pays for what the one before it left behind (writeback, a data node deleting blocks, garbage),
 * and with a fixed order that cost lands on one configuration every time. Besides the ratio of
 * medians, the report gives the median of the per-round ratios: each pairs runs made minutes apart
 * at most, so drift of the machine between rounds cancels, and it is what targets are judged by.
 *
 * @param <C> a configuration
 */
final class InterleavedRounds<C> {

    /** One run of a configuration, returning its throughput per second. */
    @FunctionalInterface
    interface Run<C> {
        double perSecond(C config) throws Exception;
    }

    private final List<C> configs;
    private final Function<C, String> label;
    private final String unit;

    /** {@code unit} names what is counted per second ("rows", "records"). */
    InterleavedRounds(List<C> configs, Function<C, String> label, String unit) {
        this.configs = List.copyOf(configs);
        this.label = label;
        this.unit = unit;
    }

    /** Runs the warm-up round and {@code rounds} counted rounds, printing each run; returns the counted ones. */
    Map<C, List<Double>> run(int rounds, Run<C> run) throws Exception {
        for (C config : configs) {
            print("warm-up", config, run.perSecond(config));
        }
        Map<C, List<Double>> results = new LinkedHashMap<>();
        for (int round = 1; round <= rounds; round++) {
            List<C> order = new ArrayList<>(configs);
            if (round % 2 == 0) {
                Collections.reverse(order);
            }
            for (C config : order) {
                double perSecond = run.perSecond(config);
                results.computeIfAbsent(config, c -> new ArrayList<>()).add(perSecond);
                print("round " + round, config, perSecond);
            }
        }
        return results;
    }

    /**
     * The table of every round, the median and its ratio to {@code baseline}'s median, then whether
     * {@code subject} reached {@code target} times the baseline, described as {@code targetText} (left out
     * when {@code target} is 0: a comparison without a target).
     */
    String report(Map<C, List<Double>> results, C baseline, C subject, double target, String targetText) {
        StringBuilder out = new StringBuilder();
        int width = configs.stream().mapToInt(c -> label.apply(c).length()).max().orElse(6) + 2;
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-" + width + "s", "config"));
        int rounds = results.values().stream().findFirst().map(List::size).orElse(0);
        for (int i = 1; i <= rounds; i++) {
            header.append(String.format(Locale.ROOT, " %12s", "round " + i));
        }
        header.append(String.format(Locale.ROOT, " %13s %8s %8s", "median", "ratio", "paired"));
        out.append(unit).append(" per second (ratio = median / median of ").append(label.apply(baseline))
                .append("; paired = median of each round's run / that round's ").append(label.apply(baseline))
                .append(")\n");
        out.append(header).append('\n').append("-".repeat(header.length())).append('\n');
        double base = results.containsKey(baseline) ? BenchmarkArgs.median(results.get(baseline)) : Double.NaN;
        for (Map.Entry<C, List<Double>> entry : results.entrySet()) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-" + width + "s", label.apply(entry.getKey())));
            for (double value : entry.getValue()) {
                line.append(String.format(Locale.ROOT, " %,12.0f", value));
            }
            double median = BenchmarkArgs.median(entry.getValue());
            line.append(String.format(Locale.ROOT, " %,13.0f %8.3f %8.3f", median, median / base,
                    pairedRatio(results, baseline, entry.getKey())));
            out.append(line).append('\n');
        }
        if (target > 0 && results.containsKey(baseline) && results.containsKey(subject)) {
            double paired = pairedRatio(results, baseline, subject);
            out.append(String.format(Locale.ROOT, "%nTarget: %s >= %.2f x %s: %s (paired ratio %.3f, ratio of medians "
                    + "%.3f)%n", targetText, target, label.apply(baseline), paired >= target ? "MET" : "NOT MET", paired,
                    BenchmarkArgs.median(results.get(subject)) / base));
        }
        return out.toString();
    }

    /** The median over rounds of {@code config}'s run divided by the baseline's run of the same round. */
    static <C> double pairedRatio(Map<C, List<Double>> results, C baseline, C config) {
        List<Double> base = results.get(baseline);
        List<Double> values = results.get(config);
        if (base == null || values == null || base.size() != values.size()) {
            return Double.NaN;
        }
        List<Double> ratios = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            ratios.add(values.get(i) / base.get(i));
        }
        return BenchmarkArgs.median(ratios);
    }

    private void print(String phase, C config, double perSecond) {
        System.out.printf(Locale.ROOT, "  %-8s %-32s %,12.0f %s/s%n", phase, label.apply(config), perSecond, unit);
    }
}
