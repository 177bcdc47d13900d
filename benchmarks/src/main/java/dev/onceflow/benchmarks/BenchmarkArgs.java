package dev.onceflow.benchmarks;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Settings of a benchmark given as system properties or {@code name=value} arguments, and the median it reports. */
final class BenchmarkArgs {

    private BenchmarkArgs() {
    }

    /**
     * The settings named in {@code accepted}: system properties first, arguments override them.
     * An unknown argument prints {@code usage} and exits with status 2.
     */
    static Map<String, String> parse(String benchmark, String[] args, List<String> accepted, String usage) {
        Map<String, String> values = new HashMap<>();
        for (String name : accepted) {
            if (System.getProperty(name) != null) {
                values.put(name, System.getProperty(name));
            }
        }
        for (String arg : args) {
            String plain = arg.startsWith("--") ? arg.substring(2) : arg;
            int eq = plain.indexOf('=');
            if (eq < 0 || !accepted.contains(plain.substring(0, eq))) {
                System.err.println(benchmark + ": unknown argument '" + arg + "'; accepted: " + usage);
                System.exit(2);
            }
            values.put(plain.substring(0, eq), plain.substring(eq + 1));
        }
        return values;
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
