package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointMetadata;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.spi.record.Event;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keyed state larger than the heap on the RocksDB backend: {@link LargeStateJob} runs in a child
 * JVM with a {@value #HEAP_MB} MB heap and builds more than three times that much state. It takes
 * incremental checkpoints of it, fails once and restores the latest; or it takes a (full, portable)
 * savepoint of it, and a second JVM resumes from that. Either way every key's state comes back:
 * each key's second visit finds exactly what its first stored, once.
 */
@Timeout(600)
class RocksDBStateLargerThanHeapTest {

    private static final int HEAP_MB = 64;

    @TempDir
    Path dir;

    @Test
    void stateThreeTimesTheHeapIsCheckpointedAndRestoredIntact() throws Exception {
        Path checkpoints = dir.resolve("checkpoints");
        Path output = dir.resolve("output");
        String text = run("fail", "job.log", checkpoints.toString(), output.toString());
        assertThat(text).as("one failure, one restore").contains("restarts=1 status=FINISHED");

        assertSecondVisitsExactlyOnce(output);
        Matcher restart = Pattern.compile("restarting \\(restart 1\\) from (\\S+) in").matcher(text);
        assertThat(restart.find()).as("the restart's log line").isTrue();
        assertThat(restart.group(1)).as("the restart restored a checkpoint").contains("chk-");
        CheckpointMetadata restored = CheckpointStorage.load(CheckpointLocation.of(Path.of(restart.group(1))))
                .metadata();
        CheckpointMetadata last = new CheckpointStorage(CheckpointLocation.of(checkpoints.resolve("large-state")))
                .latestValid().orElseThrow().metadata();
        System.out.printf("RocksDB state with a %d MB heap: %d MB in checkpoint %d, which the restore read; "
                + "%d MB in the last, %d%n", HEAP_MB, restored.fullStateSize() >> 20, restored.checkpointId(),
                last.fullStateSize() >> 20, last.checkpointId());
        assertThat(restored.fullStateSize()).as("bytes of state the restore read, against a %d MB heap", HEAP_MB)
                .isGreaterThan(3L * HEAP_MB << 20);
    }

    @Test
    void aSavepointOfStateThreeTimesTheHeapIsWrittenAndRestoredIntact() throws Exception {
        Path checkpoints = dir.resolve("checkpoints");
        String first = run("savepoint", "savepoint.log", checkpoints.toString(), dir.resolve("first").toString());
        Matcher taken = Pattern.compile("savepoint=(\\S+) read=(\\d+)").matcher(first);
        assertThat(taken.find()).as("the savepoint's line").isTrue();
        assertThat(Long.parseLong(taken.group(2))).as("stopped in the second pass")
                .isBetween((long) LargeStateJob.KEYS, LargeStateJob.ROWS - 1);
        CheckpointMetadata savepoint = CheckpointStorage.load(CheckpointLocation.of(Path.of(taken.group(1))))
                .metadata();
        System.out.printf("RocksDB savepoint with a %d MB heap: %d MB%n", HEAP_MB, savepoint.fullStateSize() >> 20);
        assertThat(savepoint.fullStateSize()).as("bytes of the savepoint, against a %d MB heap", HEAP_MB)
                .isGreaterThan(3L * HEAP_MB << 20);

        String second = run("resume", "resume.log", checkpoints.toString(), dir.resolve("second").toString(),
                taken.group(1));

        assertThat(second).contains("restarts=0 status=FINISHED");
        assertSecondVisitsExactlyOnce(dir.resolve("first"), dir.resolve("second"));
    }

    /** Runs {@link LargeStateJob} with {@code args} in a JVM with a small heap; its output, once it exited 0. */
    private String run(String... args) throws Exception {
        return run(args[0], args[1], java.util.Arrays.copyOfRange(args, 2, args.length));
    }

    private String run(String mode, String logName, String[] args) throws Exception {
        Path log = dir.resolve(logName);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + HEAP_MB + "m", "-Donceflow.state.backend=rocksdb",
                "-Donceflow.state.rocksdb.dir=" + dir.resolve("rocksdb"),
                "-cp", System.getProperty("java.class.path"), LargeStateJob.class.getName(), mode));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
        boolean ended = process.waitFor(270, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly().waitFor();
        }
        String text = Files.readString(log, StandardCharsets.UTF_8);
        String tail = text.substring(Math.max(0, text.length() - 4_000));
        assertThat(ended).as("the job (%s) ended within 270 s; its log ends with:%n%s", mode, tail).isTrue();
        assertThat(process.exitValue()).as("exit status (%s); the log ends with:%n%s", mode, tail).isZero();
        return text;
    }

    /** Every key's second visit committed once, having found exactly what its first visit stored. */
    private static void assertSecondVisitsExactlyOnce(Path... outputs) throws Exception {
        CommittedOutput out = CommittedOutput.read(outputs);
        assertThat(out.hiddenFiles).as("in-progress files left behind").isEmpty();
        Map<String, Integer> twice = new TreeMap<>();
        out.occurrences.forEach((id, n) -> {
            if (n > 1) {
                twice.put(id, n);
            }
        });
        assertThat(twice).as("ids committed more than once").isEmpty();
        List<String> wrong = new ArrayList<>();
        for (Event event : out.events) {
            if (!event.payload().equals("ok") || event.count() != 2) {
                wrong.add(event.id() + " " + event.key() + " " + event.payload() + " visits=" + event.count());
            }
        }
        assertThat(wrong).as("second visits that did not find exactly the first visit's state").isEmpty();
        List<Long> lost = new ArrayList<>();
        for (long id = LargeStateJob.KEYS; id < LargeStateJob.ROWS; id++) {
            if (!out.occurrences.containsKey(Long.toString(id))) {
                lost.add(id);
            }
        }
        assertThat(lost).as("second visits never committed").isEmpty();
        assertThat(out.lines).isEqualTo(LargeStateJob.KEYS);
    }
}
