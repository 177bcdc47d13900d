package dev.onceflow.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.JobTempDirectories.ProcessStamp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a test JVM that was killed left behind is found and deleted, its jobs killed; nothing of a
 * running test JVM's, and no process that is not such a job.
 */
class JobTempDirectoriesTest {

    @TempDir
    Path tmp;
    private final List<Process> started = new ArrayList<>();
    private ProcessStamp deadOwner;

    @BeforeEach
    void aTestJvmThatWasKilled() throws Exception {
        Assumptions.assumeTrue(!JobTempDirectories.HOST.equals("unknown"), "no /proc: stamps are never trusted here");
        Process killed = start("sleep", "60");
        deadOwner = ProcessStamp.of(killed.toHandle());
        killed.destroyForcibly().waitFor();
    }

    @AfterEach
    void stopProcesses() {
        started.forEach(Process::destroyForcibly);
    }

    @Test
    void theDirectoryOfADeadOwnerIsDeletedAndItsJobKilled() throws Exception {
        Path directory = directory("1", deadOwner);
        Process job = sleepingJvm(directory);
        ProcessStamp.of(job.toHandle()).write(directory.resolve(JobTempDirectories.CHILD_FILE));
        Files.writeString(Files.createDirectory(directory.resolve("flink-dist-cache")).resolve("rpc.jar"), "x");

        assertThat(JobTempDirectories.deleteAbandoned(tmp, Instant.now().minus(JobTempDirectories.ABANDONED_AFTER)))
                .isEqualTo(1);

        assertThat(directory).doesNotExist();
        assertThat(job.waitFor(10, TimeUnit.SECONDS)).as("the job the killed test JVM left running ended").isTrue();
    }

    @Test
    void noProcessIsKilledUnlessItIsTheStampedJobOfThatDirectory() throws Exception {
        // Alive, stamped rightly, but not started with this directory as its temp directory.
        Path notAJob = directory("1", deadOwner);
        Process other = start("sleep", "60");
        ProcessStamp.of(other.toHandle()).write(notAJob.resolve(JobTempDirectories.CHILD_FILE));
        // The job of this directory, but the stamp's start time is not its own: a reused pid.
        Path reused = directory("2", deadOwner);
        Process job = sleepingJvm(reused);
        ProcessStamp stamp = ProcessStamp.of(job.toHandle());
        new ProcessStamp(stamp.pid(), stamp.startMillis() - 10_000, stamp.host())
                .write(reused.resolve(JobTempDirectories.CHILD_FILE));
        // Stamped on another host (boot or container): its pids mean nothing here.
        Path foreign = directory("3", null);
        new ProcessStamp(999_999, 0, "another-boot/pid:[1]").write(foreign.resolve(JobTempDirectories.OWNER_FILE));

        assertThat(JobTempDirectories.deleteAbandoned(tmp, Instant.now().minus(JobTempDirectories.ABANDONED_AFTER)))
                .isEqualTo(2);

        assertThat(notAJob).doesNotExist();
        assertThat(reused).doesNotExist();
        assertThat(other.isAlive()).as("a process that is not the directory's job").isTrue();
        assertThat(job.isAlive()).as("a process whose start time is not the stamped one").isTrue();
        assertThat(foreign).as("a recent directory stamped on another host").isDirectory();
    }

    @Test
    void aRunningOwnersDirectoryStaysHoweverOldAndOwnerlessOnesAfterADay() throws Exception {
        Instant now = Instant.now();
        Path running = directory("1", ProcessStamp.of(ProcessHandle.current()));
        Path ownerless = directory("2", null);
        Path ownerlessRecent = directory("3", null);
        Path unreadable = directory("4", null);
        Files.writeString(unreadable.resolve(JobTempDirectories.OWNER_FILE), "not a stamp");
        Path foreignOld = directory("5", null);
        new ProcessStamp(1, 0, "another-boot/pid:[1]").write(foreignOld.resolve(JobTempDirectories.OWNER_FILE));
        Path someoneElses = Files.createDirectory(tmp.resolve("other-tmp-6"));
        Path anotherUsers = directory("7", null);
        boolean root = Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc",
                Long.toString(ProcessHandle.current().pid())), "unix:uid"));
        if (root) { // only root can give a directory away
            Files.setAttribute(anotherUsers, "unix:uid", 12_345);
        }
        FileTime twoDaysAgo = FileTime.from(now.minus(Duration.ofDays(2)));
        for (Path old : List.of(running, ownerless, foreignOld, someoneElses, anotherUsers)) {
            Files.setLastModifiedTime(old, twoDaysAgo);
        }
        Files.setLastModifiedTime(ownerlessRecent, FileTime.from(now.minus(Duration.ofHours(23))));

        assertThat(JobTempDirectories.deleteAbandoned(tmp, now.minus(JobTempDirectories.ABANDONED_AFTER)))
                .isEqualTo(root ? 2 : 3);

        if (root) {
            assertThat(anotherUsers).as("another user's directory, however old").isDirectory();
        }
        assertThat(running).as("a running owner's directory, however old").isDirectory();
        assertThat(ownerless).as("an old directory without an owner").doesNotExist();
        assertThat(foreignOld).as("an old directory stamped on another host").doesNotExist();
        assertThat(ownerlessRecent).as("a recent directory without an owner").isDirectory();
        assertThat(unreadable).as("a recent directory whose owner cannot be read").isDirectory();
        assertThat(someoneElses).isDirectory();
    }

    /** A job temp directory named {@code prefix + name}, with {@code owner} written into it unless null. */
    private Path directory(String name, ProcessStamp owner) throws IOException {
        Path directory = Files.createDirectory(tmp.resolve(JobTempDirectories.PREFIX + name));
        if (owner != null) {
            owner.write(directory.resolve(JobTempDirectories.OWNER_FILE));
        }
        return directory;
    }

    /** A JVM that sleeps, started with {@code directory} as its temp directory, as a job is. */
    private Process sleepingJvm(Path directory) throws IOException {
        Path source = Files.writeString(tmp.resolve("Sleep.java"),
                "public class Sleep { public static void main(String[] a) throws Exception { Thread.sleep(60_000); } }");
        return start(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto",
                "-Djava.io.tmpdir=" + directory, source.toString());
    }

    private Process start(String... command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        started.add(process);
        return process;
    }
}
