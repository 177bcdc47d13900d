package dev.onceflow.testing.elasticsearch;

import static java.nio.file.attribute.PosixFilePermissions.fromString;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ElasticsearchDistributionTest {

    @TempDir
    Path nowhere;

    /** What the build writes into distribution.properties: the zip in Maven's local repository. */
    @Test
    void findsTheZipWhereTheBuildRecordedIt() throws Exception {
        Path zip = zip();

        assertThat(zip.getFileName()).hasToString("elasticsearch-" + ElasticsearchDistribution.VERSION + ".zip");
        assertThat(zip).isRegularFile();
        assertThat(ElasticsearchDistribution.locateZip(zip.toString(), "", nowhere)).isEqualTo(zip);
    }

    @Test
    void findsTheZipOnTheClassPathWhenTheRecordedPathIsGone() throws Exception {
        String classPath = String.join(File.pathSeparator, "/somewhere/else.jar", zip().toString());

        assertThat(ElasticsearchDistribution.locateZip(nowhere.resolve("gone.zip").toString(), classPath, nowhere))
                .isEqualTo(zip());
    }

    /** As when an IDE filters the resources itself, without the path only the Maven build knows. */
    @Test
    void findsTheZipInTheDefaultLocalRepositoryWhenTheBuildRecordedNone(@TempDir Path userHome) throws Exception {
        Path inRepository = userHome.resolve(".m2/repository/org/elasticsearch/distribution/integ-test-zip/elasticsearch/"
                + ElasticsearchDistribution.VERSION + "/" + ElasticsearchDistribution.zipName());
        Files.createDirectories(inRepository.getParent());
        Files.createFile(inRepository); // only found, not opened

        assertThat(ElasticsearchDistribution.locateZip("${org.elasticsearch.distribution.integ-test-zip:elasticsearch:zip}",
                "/somewhere/else.jar", userHome)).isEqualTo(inRepository);
    }

    @Test
    void failsNamingTheArtifactWhenTheZipIsNowhere() {
        assertThatThrownBy(() -> ElasticsearchDistribution.locateZip(null, "/somewhere/else.jar", nowhere))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("org.elasticsearch.distribution.integ-test-zip:elasticsearch:"
                        + ElasticsearchDistribution.VERSION + ":zip")
                .hasMessageContaining("onceflow-testing-elasticsearch");
    }

    /**
     * Two JVMs unpacking at once are two threads here: both get the same complete tree, readable by
     * everyone and with executable launch scripts, and no staging directory is left behind. A tree
     * that lost a file is unpacked again.
     */
    @Test
    void unpacksOnceIntoAReadableTreeAndAgainWhenFilesWentMissing(@TempDir Path parent) throws Exception {
        Path zip = zip();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        List<Future<Path>> unpacked;
        try {
            unpacked = threads.invokeAll(List.of(
                    () -> ElasticsearchDistribution.unpack(zip, parent), () -> ElasticsearchDistribution.unpack(zip, parent)));
        } finally {
            threads.shutdown();
        }
        Path home = parent.resolve("onceflow-elasticsearch-" + ElasticsearchDistribution.VERSION);
        assertThat(unpacked.get(0).get()).isEqualTo(home);
        assertThat(unpacked.get(1).get()).isEqualTo(home);
        try (Stream<Path> children = Files.list(parent)) {
            assertThat(children).containsExactly(home);
        }
        assertThat(Files.getPosixFilePermissions(home.resolve("bin/elasticsearch"))).isEqualTo(fromString("rwxr-xr-x"));
        assertThat(Files.getPosixFilePermissions(home)).isEqualTo(fromString("rwxr-xr-x"));
        assertThat(Files.getPosixFilePermissions(home.resolve("plugins"))).isEqualTo(fromString("rwxr-xr-x"));
        // In the zip this file is rw-rw----, out of reach of the user a node runs as.
        assertThat(Files.getPosixFilePermissions(home.resolve("config/jvm.options"))).isEqualTo(fromString("rw-r--r--"));
        assertThat(home.resolve("lib/elasticsearch-" + ElasticsearchDistribution.VERSION + ".jar")).isRegularFile();

        Path launcher = home.resolve("bin/elasticsearch-cli");
        Files.delete(launcher);
        assertThat(ElasticsearchDistribution.unpack(zip, parent)).isEqualTo(home);

        assertThat(launcher).isExecutable();
        try (Stream<Path> children = Files.list(parent)) {
            assertThat(children).containsExactly(home);
        }
    }

    /** Where this build's distribution.properties says the zip is. */
    private static Path zip() throws Exception {
        Properties properties = new Properties();
        try (InputStream in = ElasticsearchDistribution.class.getResourceAsStream("distribution.properties")) {
            properties.load(in);
        }
        return Path.of(properties.getProperty("zip"));
    }
}
