package dev.onceflow.runtime.cli;

import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One meter as {@code GET /metrics} shows it: name, type, tags, base unit and the current value of
 * each of its statistics (Micrometer's {@code COUNT}, {@code TOTAL_TIME}, {@code MAX}, {@code VALUE},
 * ...; times in seconds).
 */
record MeterSnapshot(String name, String type, Map<String, String> tags, String baseUnit,
        Map<String, Double> measurements) {

    /** Every meter of the registry, sorted by name and tags so that the output is stable. */
    static List<MeterSnapshot> of(MeterRegistry registry) {
        return registry.getMeters().stream().map(MeterSnapshot::of)
                .sorted(Comparator.comparing(MeterSnapshot::name).thenComparing(m -> m.tags().toString()))
                .toList();
    }

    private static MeterSnapshot of(Meter meter) {
        Map<String, String> tags = new TreeMap<>();
        for (Tag tag : meter.getId().getTags()) {
            tags.put(tag.getKey(), tag.getValue());
        }
        Map<String, Double> measurements = new LinkedHashMap<>();
        for (Measurement m : meter.measure()) {
            measurements.put(m.getStatistic().name(), m.getValue());
        }
        return new MeterSnapshot(meter.getId().getName(), meter.getId().getType().name(), tags,
                meter.getId().getBaseUnit(), measurements);
    }
}
