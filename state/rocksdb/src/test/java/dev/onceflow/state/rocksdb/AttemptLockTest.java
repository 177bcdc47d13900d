package dev.onceflow.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.runtime.state.KeyedStateBackend;
import dev.onceflow.runtime.state.StateBackend;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.serialization.Serializers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local files of an attempt whose process ended without closing its backend (killed, out of
 * memory) are deleted by the next backend opened on the same directory; those of attempts still
 * open, in this process or another, are not. A killed process leaves no copy of RocksDB's native
 * library either.
 */
@Timeout(120)
class AttemptLockTest {

    private static final StateDescriptor.Value<Long> COUNT = StateDescriptor.value("count", Serializers.LONG);

    @TempDir
    Path local;

    private KeyedStateBackend<String> open(String job, String attempt) throws IOException {
        return open(local, job, attempt);
    }

    private static KeyedStateBackend<String> open(Path root, String job, String attempt) throws IOException {
        return new RocksDBStateBackend(root).createKeyedStateBackend(
                new StateBackend.Scope(job, "count", 0, 1, 128, attempt), Serializers.STRING);
    }

    @Test
    void filesOfAttemptsNoProcessHoldsAreDeletedWhenTheNextBackendOpens() throws Exception {
        Path operator = Files.createDirectories(local.resolve("job").resolve("count"));
        // What a killed process leaves: the database, a native checkpoint, a snapshot file, a
        // restore's scratch directory and its lock file (whose lock died with it).
        Files.createDirectories(operator.resolve("subtask-0-dead1"));
        Files.writeString(operator.resolve("subtask-0-dead1").resolve("000007.sst"), "x".repeat(1000));
        Files.createDirectories(operator.resolve("subtask-0-dead1.chk-3"));
        Files.writeString(operator.resolve("subtask-0-dead1.chk-3").resolve("CURRENT"), "MANIFEST-000005\n");
        Files.writeString(operator.resolve("subtask-0-dead1.snapshot-12"), "groups");
        Files.createDirectories(operator.resolve("subtask-0-dead1.restore-0"));
        Files.writeString(operator.resolve("subtask-0-dead1.lock"), "");
        // A checkpoint directory whose database was already deleted, without a lock file.
        Files.createDirectories(operator.resolve("subtask-1-dead2.chk-9"));
        // Another job's leftovers under the same root.
        Path otherJob = Files.createDirectories(local.resolve("other-job").resolve("window"));
        Files.createDirectories(otherJob.resolve("subtask-2-dead3"));
        // Not an attempt's: kept.
        Files.writeString(operator.resolve("notes.txt"), "mine");
        Files.createDirectories(operator.resolve("subtask-0-dead1.backup"));

        try (KeyedStateBackend<String> backend = open("job", "new")) {
            assertThat(names(operator)).containsExactly("notes.txt", "subtask-0-dead1.backup", "subtask-0-new",
                    "subtask-0-new.lock");
            assertThat(names(otherJob)).isEmpty();
        }
        assertThat(names(operator)).as("after close").containsExactly("notes.txt", "subtask-0-dead1.backup");
    }

    @Test
    void filesOfAnAttemptStillOpenInThisProcessAreKept(@TempDir Path elsewhere) throws Exception {
        Path operator = local.resolve("job").resolve("count");
        // The same root spelled two other ways: through a symbolic link, and with "..".
        Path link = Files.createSymbolicLink(elsewhere.resolve("link"), local);
        Path dotDot = local.resolve("job").resolve("..");
        try (KeyedStateBackend<String> first = open(local, "job", "first")) {
            first.setCurrentKey("key-1");
            first.state(COUNT).update(41L);

            try (KeyedStateBackend<String> second = open(link, "job", "second");
                    KeyedStateBackend<String> third = open(dotDot, "job", "third")) {
                assertThat(names(operator)).containsExactly("subtask-0-first", "subtask-0-first.lock",
                        "subtask-0-second", "subtask-0-second.lock", "subtask-0-third", "subtask-0-third.lock");
            }
            // Had opening through another spelling dropped the first attempt's lock (closing any
            // channel to a file drops the process's locks on it), another process would delete it.
            Process scanner = startHolder("scanner", Files.createDirectories(local.resolve("child-tmp")));
            try {
                assertThat(names(operator)).as("after another process opened beside it").containsExactly(
                        "subtask-0-first", "subtask-0-first.lock", "subtask-0-scanner", "subtask-0-scanner.lock");
            } finally {
                kill(scanner);
            }

            ValueState<Long> count = first.state(COUNT);
            assertThat(count.value()).as("the first attempt's state, after the others opened and closed")
                    .isEqualTo(41L);
        }
        try (KeyedStateBackend<String> last = open(local, "job", "last")) {
            assertThat(names(operator)).as("the killed scanner's files are deleted, the first's by its close")
                    .containsExactly("subtask-0-last", "subtask-0-last.lock");
        }
        assertThat(names(operator)).isEmpty();
    }

    @Test
    void attemptsOpeningAndClosingOnManyThreadsKeepEachOthersFilesAndDeleteOnlyTheDead() throws Exception {
        Path operator = Files.createDirectories(local.resolve("job").resolve("count"));
        int threads = 4;
        int rounds = 10;
        try (KeyedStateBackend<String> keeper = open("job", "keeper")) {
            keeper.setCurrentKey("key-1");
            keeper.state(COUNT).update(7L);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<Long>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    results.add(pool.submit(() -> {
                        long written = 0;
                        for (int round = 0; round < rounds; round++) {
                            // What a dead process left, for some other thread's scan to delete.
                            Files.createDirectories(operator.resolve("subtask-0-dead" + thread + "x" + round));
                            try (KeyedStateBackend<String> backend = open("job", "t" + thread + "x" + round)) {
                                backend.setCurrentKey("key-" + round);
                                backend.state(COUNT).update((long) round);
                                written += backend.state(COUNT).value();
                            }
                        }
                        return written;
                    }));
                }
                for (Future<Long> result : results) {
                    assertThat(result.get(100, TimeUnit.SECONDS)).as("each attempt reads what it wrote")
                            .isEqualTo((long) rounds * (rounds - 1) / 2);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(keeper.state(COUNT).value()).as("the attempt open all along").isEqualTo(7L);
            // The last dead attempt of each thread may have been made after the last scan.
            try (KeyedStateBackend<String> last = open("job", "last")) {
                assertThat(names(operator)).containsExactly("subtask-0-keeper", "subtask-0-keeper.lock",
                        "subtask-0-last", "subtask-0-last.lock");
            }
        }
        assertThat(names(operator)).isEmpty();
    }

    @Test
    void filesOfAnotherProcessAreKeptWhileItRunsAndDeletedOnceItIsKilled() throws Exception {
        Path operator = local.resolve("job").resolve("count");
        Path tmp = Files.createDirectories(local.resolve("child-tmp"));
        Process holder = startHolder("held", tmp);
        try {
            long heldBytes = bytes(operator.resolve("subtask-0-held"));

            try (KeyedStateBackend<String> backend = open("job", "beside")) {
                assertThat(names(operator)).as("while the other process runs").containsExactly("subtask-0-beside",
                        "subtask-0-beside.lock", "subtask-0-held", "subtask-0-held.lock");
                assertThat(bytes(operator.resolve("subtask-0-held"))).isEqualTo(heldBytes);
            }

            kill(holder);
            assertThat(names(operator)).as("left by the killed process").containsExactly("subtask-0-held",
                    "subtask-0-held.lock");
            // RocksDB's own loading leaves a 15 MB copy of its native library in the temp directory
            // of every killed process; the backend loads a copy it deleted right after loading it.
            assertThat(names(tmp)).as("the killed process's temp directory").noneMatch(n -> n.contains("rocksdb"));
            assertThat(names(local)).as("the local directory's top level").containsExactly("child-tmp", "job");

            try (KeyedStateBackend<String> backend = open("job", "after")) {
                assertThat(names(operator)).as("once the other process is dead")
                        .containsExactly("subtask-0-after", "subtask-0-after.lock");
            }
        } finally {
            kill(holder);
        }
    }

    @Test
    void anAttemptIdThatCouldNameAnotherAttemptsFilesIsRefused() {
        assertThatThrownBy(() -> open("job", "first.chk-3")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an attempt id must be letters, digits, '_' and '-', not \"first.chk-3\"");
        assertThat(local).isEmptyDirectory();
    }

    /**
     * Starts {@link HoldKeyedState} on {@code local} as attempt {@code attempt}, with {@code tmp}
     * as its temp directory, and returns once it holds its state.
     */
    private Process startHolder(String attempt, Path tmp) throws Exception {
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"),
                HoldKeyedState.class.getName(), local.toString(), attempt)
                .redirectErrorStream(true).start();
        BufferedReader output = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                StandardCharsets.UTF_8));
        // A thread of its own: the common pool may have a single thread on 2 cores.
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            StringBuilder lines = new StringBuilder();
            try {
                for (String line = output.readLine(); line != null; line = output.readLine()) {
                    if (line.equals("ready")) {
                        return line;
                    }
                    lines.append(line).append('\n');
                }
                return "exited with " + holder.waitFor() + ":\n" + lines;
            } catch (IOException | InterruptedException e) {
                return e + ":\n" + lines;
            }
        }, task -> {
            Thread reader = new Thread(task, "holder-output");
            reader.setDaemon(true);
            reader.start();
        });
        try {
            assertThat(ready.get(60, TimeUnit.SECONDS)).as("the holding process's state is written")
                    .isEqualTo("ready");
        } catch (Exception | AssertionError e) {
            kill(holder);
            throw e;
        }
        // Its output is not read further: it prints nothing more than a line or two of logging.
        return holder;
    }

    private static void kill(Process process) throws InterruptedException {
        process.destroyForcibly();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("killed").isTrue();
    }

    private static List<String> names(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static long bytes(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }
}
