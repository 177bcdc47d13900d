package dev.onceflow.testing.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared node in a JVM of its own, so that the test sees what that JVM's exit leaves behind:
 * nothing, its shutdown hook having stopped the node and deleted its directory.
 */
class SharedNodeTest {

    @Test
    void isOneNodePerJvmThatCannotBeClosedAndIsGoneWhenTheJvmExits(@TempDir Path dir) throws Exception {
        Path output = dir.resolve("probe.out");
        Process probe = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), SharedNodeProbe.class.getName())
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!probe.waitFor(180, TimeUnit.SECONDS)) {
            probe.destroyForcibly();
        }
        List<String> lines = Files.readAllLines(output);
        assertThat(probe.exitValue()).as(String.join("\n", lines)).isZero();

        assertThat(lines).as("the probe's output").contains("same=true", "close=refused", "running=true");
        List<Long> pids = values(lines, "pid=").stream().map(Long::valueOf).toList();
        assertThat(pids).as("the node's processes").hasSizeGreaterThanOrEqualTo(3);
        assertThat(pids).as("the node's processes after the JVM exited")
                .noneMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        assertThat(Path.of(values(lines, "directory=").get(0))).as("the node's directory").doesNotExist();
        int port = Integer.parseInt(values(lines, "port=").get(0));
        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
    }

    private static List<String> values(List<String> lines, String prefix) {
        return lines.stream().filter(line -> line.startsWith(prefix)).map(line -> line.substring(prefix.length())).toList();
    }
}
