package dev.onceflow.conformance;

import java.nio.file.Path;

/**
 * Where one test case's data lives: a name unique per case (use it for a topic, a table, an index
 * or a directory) and a private working directory.
 */
public record TestDestination(String name, Path workDirectory) {
}
