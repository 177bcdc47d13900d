package dev.onceflow.testing.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The wrapper that stops a node whose test JVM died: tried on commands that start in milliseconds. */
class StopWhenInputEndsTest {

    @Test
    void stopsTheCommandOnceItsInputEnds() throws Exception {
        Process wrapper = new ProcessBuilder(ElasticsearchNode.stopWhenInputEnds(List.of("sleep", "600")))
                .redirectErrorStream(true).start();
        ProcessHandle sleep = awaitDescendant(wrapper, "sleep");

        // What the kernel does to the pipe when this JVM exits, however it exits.
        wrapper.getOutputStream().close();

        assertThat(wrapper.waitFor(10, TimeUnit.SECONDS)).as("the wrapper exits").isTrue();
        assertThat(sleep.onExit().get(10, TimeUnit.SECONDS).isAlive()).as("the command").isFalse();
        assertThat(wrapper.exitValue()).as("exit status of a command ended by SIGTERM").isEqualTo(128 + 15);
        assertThat(new String(wrapper.getInputStream().readAllBytes())).isEmpty();
    }

    @Test
    void exitsWithTheCommandAndItsStatusWhileTheInputIsOpen() throws Exception {
        Process wrapper = new ProcessBuilder(ElasticsearchNode.stopWhenInputEnds(List.of("sh", "-c", "exit 3")))
                .redirectErrorStream(true).start();

        assertThat(wrapper.waitFor(10, TimeUnit.SECONDS)).as("the wrapper exits with its command").isTrue();
        assertThat(wrapper.exitValue()).isEqualTo(3);
        assertThat(wrapper.descendants()).as("the watcher is stopped too").isEmpty();
        assertThat(new String(wrapper.getInputStream().readAllBytes())).isEmpty();
    }

    private static ProcessHandle awaitDescendant(Process wrapper, String command) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            var found = wrapper.descendants()
                    .filter(p -> p.info().command().orElse("").endsWith("/" + command))
                    .findFirst();
            if (found.isPresent()) {
                return found.get();
            }
            Thread.sleep(10); // the shell forks it at some point; there is no event for that
        }
        throw new AssertionError("no " + command + " among the descendants of the wrapper");
    }
}
