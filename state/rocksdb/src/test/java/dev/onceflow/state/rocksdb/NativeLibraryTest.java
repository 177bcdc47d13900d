package dev.onceflow.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.runtime.state.KeyedStateBackend;
import dev.onceflow.runtime.state.StateBackend;
import dev.onceflow.spi.serialization.Serializers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Copies of RocksDB's native library that a process killed while loading left under the local
 * directory are deleted once they are an hour old; younger ones may be about to be loaded and
 * stay. That the copy of a normal load is gone once loaded, and that a killed process leaves none
 * in its temp directory, {@link AttemptLockTest} shows with a process it kills.
 */
class NativeLibraryTest {

    @TempDir
    Path local;

    @Test
    void copiesLeftByAKilledLoadAreDeletedOnceAnHourOld() throws Exception {
        Path old = Files.createDirectories(local.resolve(NativeLibrary.COPY_PREFIX + "1111"));
        Files.writeString(old.resolve("librocksdbjnijni-linux64.so"), "x".repeat(100));
        Files.setLastModifiedTime(old, FileTime.from(Instant.now().minus(Duration.ofMinutes(61))));
        Path young = Files.createDirectories(local.resolve(NativeLibrary.COPY_PREFIX + "2222"));
        Files.writeString(young.resolve("librocksdbjnijni-linux64.so"), "x".repeat(100));
        Files.setLastModifiedTime(young, FileTime.from(Instant.now().minus(Duration.ofMinutes(59))));

        try (KeyedStateBackend<String> backend = new RocksDBStateBackend(local).createKeyedStateBackend(
                new StateBackend.Scope("job", "count", 0, 1, 128, "a1"), Serializers.STRING)) {
            backend.setCurrentKey("k");
        }

        try (Stream<Path> entries = Files.list(local)) {
            assertThat(entries.map(p -> p.getFileName().toString()).sorted().toList())
                    .as("the old copy is deleted, the young one kept, and no copy of this load is left")
                    .containsExactly(NativeLibrary.COPY_PREFIX + "2222", "job");
        }
    }
}
