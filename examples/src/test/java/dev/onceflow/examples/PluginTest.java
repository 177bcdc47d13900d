package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.runtime.cli.Connectors;
import dev.onceflow.runtime.cli.JobFileException;
import dev.onceflow.spi.factory.SinkFactory;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connectors as deployed: jars in a plugins directory, each plugin (a subdirectory of jars, or one
 * jar) with a class loader of its own. The plugins here are compiled by the test from source, as a
 * connector built in another repository would be, against the SPI alone.
 */
@Timeout(180)
class PluginTest {

    @TempDir
    Path dir;

    /** A sink factory whose description is the {@code Origin} class it sees. */
    private static String originSink(String identifier) {
        return """
                package example.%1$s;

                import dev.onceflow.spi.factory.Option;
                import dev.onceflow.spi.factory.OptionValues;
                import dev.onceflow.spi.factory.SinkFactory;
                import dev.onceflow.spi.record.Event;
                import dev.onceflow.spi.sink.Sink;
                import java.util.List;

                public final class Factory implements SinkFactory {
                    public String identifier() { return "%2$s"; }
                    public String description() { return example.shared.Origin.name(); }
                    public List<Option<?>> options() { return List.of(); }
                    public Sink<Event> createSink(OptionValues options) { throw new UnsupportedOperationException(); }
                }
                """.formatted(identifier.replace('-', '_'), identifier);
    }

    private static String origin(String name) {
        return "package example.shared; public final class Origin { public static String name() { return \"" + name
                + "\"; } }";
    }

    @Test
    void eachPluginHasItsOwnClassesAndItsOwnCopiesOfSharedLibraries() throws Exception {
        Path plugins = dir.resolve("plugins");
        // A plugin as a directory of jars: its code in one, the library it bundles in another.
        Files.createDirectories(plugins.resolve("alpha/lib"));
        compileJar(plugins.resolve("alpha/alpha.jar"), Map.of("example.origin_a.Factory", originSink("origin-a")),
                Map.of(SinkFactory.class.getName(), "example.origin_a.Factory"));
        compileJar(plugins.resolve("alpha/lib/origin.jar"), Map.of("example.shared.Origin", origin("alpha")), Map.of());
        // A plugin as one jar with its library inside.
        compileJar(plugins.resolve("beta.jar"), Map.of("example.origin_b.Factory", originSink("origin-b"),
                "example.shared.Origin", origin("beta")), Map.of(SinkFactory.class.getName(), "example.origin_b.Factory"));

        Connectors connectors = Connectors.discover(plugins);

        SinkFactory alpha = connectors.sink("origin-a");
        SinkFactory beta = connectors.sink("origin-b");
        // Child-first: neither sees the test classpath's Origin, nor the other's.
        assertThat(alpha.description()).isEqualTo("alpha");
        assertThat(beta.description()).isEqualTo("beta");
        assertThat(connectors.origin(alpha)).isEqualTo(plugins.resolve("alpha").toString());
        assertThat(connectors.origin(beta)).isEqualTo(plugins.resolve("beta.jar").toString());
        assertThat(connectors.origin(connectors.sink("filesystem"))).isEqualTo("classpath");
        // The runtime's own factories are not found a second time through a plugin's loader.
        assertThat(connectors.sinks().keySet()).contains("filesystem", "origin-a", "origin-b");
        // The context loader sees the runtime first, then each plugin.
        assertThat(connectors.contextClassLoader().loadClass("example.shared.Origin").getMethod("name").invoke(null))
                .isEqualTo("classpath");
        assertThat(connectors.contextClassLoader().loadClass("example.origin_b.Factory").getClassLoader())
                .isSameAs(beta.getClass().getClassLoader());
    }

    @Test
    void aNameTwoPluginsProvideIsRefusedNamingBoth() throws Exception {
        Path plugins = dir.resolve("plugins");
        Files.createDirectories(plugins);
        compileJar(plugins.resolve("one.jar"), Map.of("example.origin_a.Factory", originSink("origin-a")),
                Map.of(SinkFactory.class.getName(), "example.origin_a.Factory"));
        compileJar(plugins.resolve("two.jar"), Map.of("example.origin_a.Factory", originSink("origin-a")),
                Map.of(SinkFactory.class.getName(), "example.origin_a.Factory"));

        Connectors connectors = Connectors.discover(plugins);

        assertThatThrownBy(() -> connectors.sink("origin-a")).isInstanceOf(JobFileException.class)
                .hasMessage("sink 'origin-a' is provided more than once, by " + plugins.resolve("one.jar") + " and "
                        + plugins.resolve("two.jar") + "; remove all but one");
        assertThatThrownBy(() -> connectors.sink("nowhere")).isInstanceOf(JobFileException.class)
                .hasMessageStartingWith("no sink connector 'nowhere' on the classpath or in " + plugins + "/; available: ");
    }

    /**
     * A plugin that talks to its database through {@code DriverManager} with a JDBC driver of its
     * own (H2, which the runtime does not have) runs from the plugins directory and writes every
     * record.
     */
    @Test
    void aPluginWithItsOwnJdbcDriverRunsAJob() throws Exception {
        Path plugins = dir.resolve("plugins");
        Files.createDirectories(plugins.resolve("h2-sink"));
        compileJar(plugins.resolve("h2-sink/h2-sink.jar"), Map.of("example.h2sink.H2SinkFactory", H2_SINK),
                Map.of(SinkFactory.class.getName(), "example.h2sink.H2SinkFactory"));
        Path h2 = classpath().stream().filter(PluginTest::isH2).findFirst().orElseThrow();
        Files.copy(h2, plugins.resolve("h2-sink").resolve(h2.getFileName()));
        Path database = dir.resolve("db");
        String url = "jdbc:h2:file:" + database;
        Path job = dir.resolve("plugin-job.yaml");
        Files.writeString(job, """
                name: plugin-job
                parallelism: 2
                source:
                  type: datagen
                  options: {rows: 500, keys: 7, rows-per-second: 0}
                sink:
                  type: h2-example
                  options: {url: "%s"}
                checkpoints:
                  interval: 200ms
                  mode: at-least-once
                  dir: %s
                """.formatted(url, dir.resolve("checkpoints")));

        Run connectorsRun = cli("connectors", "h2-example", "--plugins", plugins.toString());
        assertThat(connectorsRun.exit).as(connectorsRun.output).isZero();
        assertThat(connectorsRun.output).contains("sink h2-example: writes each record's id into an H2 table (from "
                + plugins.resolve("h2-sink") + ")");

        Run unknown = cli("connectors", "h2-exampel", "--plugins", plugins.toString());
        assertThat(unknown.exit).as(unknown.output).isEqualTo(2);
        assertThat(unknown.output.strip()).startsWith("onceflow: no connector or format 'h2-exampel'; available: ")
                .contains("h2-example").doesNotContain("\n");

        Run run = cli("run", job.toString(), "--plugins", plugins.toString());
        assertThat(run.exit).as(run.output).isZero();

        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id) FROM ids")) {
            assertThat(rows.next()).isTrue();
            assertThat(List.of(rows.getLong(1), rows.getLong(2), rows.getLong(3), rows.getLong(4)))
                    .as("rows, distinct ids, lowest and highest id").containsExactly(500L, 500L, 0L, 499L);
        }
    }

    private static final String H2_SINK = """
            package example.h2sink;

            import dev.onceflow.spi.factory.Option;
            import dev.onceflow.spi.factory.OptionValues;
            import dev.onceflow.spi.factory.SinkFactory;
            import dev.onceflow.spi.record.Event;
            import dev.onceflow.spi.sink.AtLeastOnceSink;
            import dev.onceflow.spi.sink.AtLeastOnceWriter;
            import dev.onceflow.spi.sink.Sink;
            import java.sql.Connection;
            import java.sql.DriverManager;
            import java.sql.PreparedStatement;
            import java.sql.SQLException;
            import java.sql.Statement;
            import java.util.List;

            public final class H2SinkFactory implements SinkFactory {
                static final Option<String> URL = Option.stringOption("url").required().description("JDBC URL.");

                public String identifier() { return "h2-example"; }
                public String description() { return "writes each record's id into an H2 table"; }
                public List<Option<?>> options() { return List.of(URL); }

                public Sink<Event> createSink(OptionValues options) {
                    String url = options.get(URL);
                    return (AtLeastOnceSink<Event>) context -> new Writer(url);
                }

                static final class Writer implements AtLeastOnceWriter<Event> {
                    private final Connection connection;
                    private final PreparedStatement merge;

                    Writer(String url) throws SQLException {
                        connection = DriverManager.getConnection(url);
                        try (Statement s = connection.createStatement()) {
                            s.execute("CREATE TABLE IF NOT EXISTS ids (id BIGINT PRIMARY KEY)");
                        }
                        connection.setAutoCommit(false);
                        merge = connection.prepareStatement("MERGE INTO ids KEY (id) VALUES (?)");
                    }

                    public void write(Event event) throws SQLException {
                        merge.setLong(1, Long.parseLong(event.id()));
                        merge.executeUpdate();
                    }

                    public void flush() throws SQLException {
                        connection.commit();
                    }

                    public void close() throws SQLException {
                        connection.close();
                    }
                }
            }
            """;

    private static String locationOf(Class<?> type) throws IOException {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IOException(e);
        }
    }

    private static boolean isH2(Path entry) {
        return entry.toString().replace(File.separatorChar, '/').contains("/com/h2database/");
    }

    private static List<Path> classpath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator)).map(Path::of).toList();
    }

    private record Run(int exit, String output) {
    }

    /** The CLI in a child JVM with this test's classpath without H2: the runtime does not have the plugin's driver. */
    private Run cli(String... args) throws Exception {
        String cp = classpath().stream().filter(entry -> !isH2(entry)).map(Path::toString)
                .collect(Collectors.joining(File.pathSeparator));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", cp, "dev.onceflow.runtime.cli.OnceflowCli"));
        command.addAll(List.of(args));
        Path output = Files.createTempFile(dir, "cli", ".log");
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile()).start();
        try {
            assertThat(process.waitFor(150, TimeUnit.SECONDS)).as("the CLI ended").isTrue();
            return new Run(process.exitValue(), Files.readString(output));
        } finally {
            process.destroyForcibly();
        }
    }

    /**
     * Compiles {@code sources} (class name -> code) against the SPI and this test's
     * {@code example.shared.Origin} into a jar with the given service files.
     */
    private void compileJar(Path jar, Map<String, String> sources, Map<String, String> services) throws IOException {
        Path build = Files.createDirectories(dir.resolve("build"));
        Path src = Files.createTempDirectory(build, "src");
        Path classes = Files.createTempDirectory(build, "classes");
        List<String> arguments = new ArrayList<>(List.of("-d", classes.toString(), "-cp",
                locationOf(SinkFactory.class) + File.pathSeparator + locationOf(example.shared.Origin.class),
                "--release", "17", "-proc:none"));
        for (Map.Entry<String, String> source : new TreeMap<>(sources).entrySet()) {
            Path file = src.resolve(source.getKey().replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, source.getValue());
            arguments.add(file.toString());
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        assertThat(compiler.run(null, null, null, arguments.toArray(String[]::new))).as("javac exit").isZero();
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
                Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace(File.separatorChar, '/')));
                Files.copy(file, out);
                out.closeEntry();
            }
            for (Map.Entry<String, String> service : services.entrySet()) {
                out.putNextEntry(new JarEntry("META-INF/services/" + service.getKey()));
                out.write((service.getValue() + "\n").getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
    }
}
