package dev.onceflow.connector.filesystem;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys.BlockWrite;
import org.junit.jupiter.api.Test;

/** The HDFS client settings the sink's writers use. */
class ClientConfigurationTest {

    @Test
    void closedFilesArePolledPromptlyUnlessTheConfigurationSaysOtherwise() {
        Configuration defaults = new Configuration();

        Configuration tuned = FileSystemSink.clientConfiguration(defaults);

        assertThat(tuned.get(BlockWrite.LOCATEFOLLOWINGBLOCK_INITIAL_DELAY_MS_KEY)).isEqualTo("20");
        assertThat(tuned.get(BlockWrite.LOCATEFOLLOWINGBLOCK_RETRIES_KEY)).isEqualTo("10");
        assertThat(defaults.get(BlockWrite.LOCATEFOLLOWINGBLOCK_INITIAL_DELAY_MS_KEY)).as("base unchanged").isNotEqualTo("20");
    }

    @Test
    void aPollingTheUserSetIsKept() {
        Configuration user = new Configuration();
        user.set(BlockWrite.LOCATEFOLLOWINGBLOCK_INITIAL_DELAY_MS_KEY, "250");

        Configuration tuned = FileSystemSink.clientConfiguration(user);

        assertThat(tuned.get(BlockWrite.LOCATEFOLLOWINGBLOCK_INITIAL_DELAY_MS_KEY)).isEqualTo("250");
        assertThat(tuned.get(BlockWrite.LOCATEFOLLOWINGBLOCK_RETRIES_KEY)).isEqualTo("10");
    }
}
