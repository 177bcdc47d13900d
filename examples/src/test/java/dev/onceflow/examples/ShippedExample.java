package dev.onceflow.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** A job file of {@code examples/} run as a user runs it: from a copy of the repository's layout. */
final class ShippedExample {

    /** The orders the examples read, shipped in {@code examples/data/orders}. */
    static final Path ORDERS = Path.of("data", "orders");

    private ShippedExample() {
    }

    /**
     * Copies the shipped orders to {@code dir/examples/data/orders} and the job file {@code example}
     * to {@code dir}, with {@code extraSteps} (YAML list items) before its own steps, so that its
     * paths, relative to the repository's root, hold when the job runs in {@code dir}.
     */
    static Path layOut(Path dir, String example, String extraSteps) throws IOException {
        Path data = Files.createDirectories(dir.resolve("examples").resolve(ORDERS));
        try (Stream<Path> files = Files.list(ORDERS)) {
            for (Path file : files.toList()) {
                Files.copy(file, data.resolve(file.getFileName()));
            }
        }
        String yaml = Files.readString(Path.of(example));
        if (!extraSteps.isEmpty()) {
            yaml = yaml.replace("steps:\n", "steps:\n" + extraSteps);
        }
        return Files.writeString(dir.resolve(example), yaml);
    }
}
