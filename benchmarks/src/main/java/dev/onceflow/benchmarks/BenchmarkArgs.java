package dev.onceflow.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

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

    /**
     * The configurations named in {@code names} (comma-separated short names), in that order.
     *
     * @throws IllegalArgumentException naming an unknown name and the accepted ones
     */
    static <C> List<C> configs(String names, C[] all, Function<C, String> shortName) {
        List<C> configs = new ArrayList<>();
        for (String name : names.split(",")) {
            C config = null;
            for (C candidate : all) {
                if (shortName.apply(candidate).equals(name.trim())) {
                    config = candidate;
                }
            }
            if (config == null) {
                throw new IllegalArgumentException("configs: unknown '" + name + "'; accepted: "
                        + String.join(", ", Arrays.stream(all).map(shortName).toList()));
            }
            configs.add(config);
        }
        return configs;
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
