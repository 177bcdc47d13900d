package dev.onceflow.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Locations name one place one way, so checkpoint directories compare and print as users wrote them. */
class CheckpointLocationTest {

    @Test
    void aPathAndItsFileUriAreTheSameLocalLocation() {
        CheckpointLocation fromPath = CheckpointLocation.of(Path.of("/data/checkpoints/"));

        assertThat(CheckpointLocation.of("/data/./checkpoints")).isEqualTo(fromPath);
        assertThat(CheckpointLocation.of("file:///data/checkpoints")).isEqualTo(fromPath);
        assertThat(fromPath.isLocal()).isTrue();
        assertThat(fromPath.toString()).isEqualTo("/data/checkpoints");
        assertThat(fromPath.toPath()).isEqualTo(Path.of("/data/checkpoints"));
    }

    @Test
    void aRelativePathIsResolvedAgainstTheWorkingDirectory() {
        assertThat(CheckpointLocation.of("ckpt").toPath()).isEqualTo(Path.of("ckpt").toAbsolutePath());
    }

    @Test
    void anHdfsUriKeepsItsAuthorityAndLosesItsTrailingSlash() {
        CheckpointLocation dir = CheckpointLocation.of("hdfs://127.0.0.1:9000/onceflow/checkpoints/");

        assertThat(dir.isLocal()).isFalse();
        assertThat(dir.toString()).isEqualTo("hdfs://127.0.0.1:9000/onceflow/checkpoints");
        assertThat(dir.resolve("job").resolve("chk-3").toString())
                .isEqualTo("hdfs://127.0.0.1:9000/onceflow/checkpoints/job/chk-3");
        assertThat(dir.resolve("job").name()).isEqualTo("job");
        assertThat(dir.resolve("job").parent()).isEqualTo(dir);
        assertThat(CheckpointLocation.of("hdfs://nn:8020").resolve("ckpt").toString()).isEqualTo("hdfs://nn:8020/ckpt");
    }

    @Test
    void resolveTakesOnlyASingleName() {
        CheckpointLocation dir = CheckpointLocation.of("hdfs://nn:8020/ckpt");

        assertThatThrownBy(() -> dir.resolve("../other")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> dir.resolve("..")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> dir.resolve("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRemoteLocationHasNoLocalPath() {
        assertThatThrownBy(() -> CheckpointLocation.of("hdfs://nn:8020/ckpt").toPath())
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("hdfs://nn:8020/ckpt");
    }
}
