package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.connector.datagen.EventGenerator;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The external connector author's path of {@code docs/connector-guide.md}, step by step, outside
 * this build: Onceflow's artifacts installed into a local repository of their own, the connector
 * template copied to a directory of its own and built there by Maven (its conformance suite run on
 * three cases), its plugin directory dropped into {@code plugins/} and a job run with it by the CLI
 * in a child JVM that has the runtime and not the template's classes.
 */
@Timeout(600)
class ConnectorGuideTest {

    private static final String VERSION = "0.1.0-SNAPSHOT";
    private static final String PLUGIN = "record-files";
    private static final String PLUGIN_JAR = "record-files-sink-1.0.0-SNAPSHOT.jar";
    /**
     * A subset of the suite that finishes in about a minute: no crash (EO-3), random SIGKILLs whose
     * replays must overwrite (EO-1 / IDEM-1), and a crash at parallelism 1 resumed at 3 (EO-1).
     */
    private static final List<String> CASES = List.of("required_eo3_boundedJobCommitsEverything",
            "required_eo1_randomKillsLoseAndDuplicateNothing", "required_eo1_crashAtParallelism1ResumeAt3");

    @TempDir
    Path dir;

    @Test
    void aConnectorBuiltFromTheTemplateInAProjectOfItsOwnPassesTheSuiteAndRunsAsAPlugin() throws Exception {
        Path root = Path.of(System.getProperty("onceflow.examples.dir")).toAbsolutePath().getParent();
        Path repository = dir.resolve("repository");
        Set<String> installed = installForConnectorAuthors(root, repository);
        assertThat(installed).as("artifacts a connector author builds against")
                .contains("onceflow-parent", "onceflow-spi", "onceflow-conformance-tck", "onceflow-core-runtime");

        Path project = dir.resolve("my-connector");
        copyTree(root.resolve("examples/connector-template"), project);
        Run build = maven(root, project, repository, "verify", "-Dtest=RecordFilesSinkConformanceTest#" + String.join("+", CASES));
        assertThat(build.exit).as(build.output).isZero();
        assertThat(suiteResult(project)).as("tests, failures, errors, skipped of the suite")
                .containsExactly(CASES.size(), 0, 0, 0);
        // The suite's own verdicts: each selected case held every id of its 20,000 exactly once.
        JsonNode report = new ObjectMapper().readTree(project.resolve("target/conformance/sink-record-files.json").toFile());
        List<String> verdicts = new ArrayList<>();
        for (JsonNode row : report.get("cases")) {
            if (CASES.contains(row.get("name").asText())) {
                verdicts.add(row.get("name").asText() + " " + row.get("verdict").asText() + " records "
                        + row.get("records").asLong() + " lost " + row.get("lost").asLong() + " duplicated "
                        + row.get("duplicated").asLong() + " guarantee " + row.get("guarantee").asText());
            }
        }
        assertThat(verdicts).containsExactlyInAnyOrderElementsOf(CASES.stream()
                .map(name -> name + " passed records 20000 lost 0 duplicated 0 guarantee exactly-once").toList());

        // The plugin directory: the connector's jar, no SPI (the runtime brings it), no suite.
        Path pluginDirectory = project.resolve("target/plugin").resolve(PLUGIN);
        assertThat(filesUnder(pluginDirectory)).containsExactly(PLUGIN_JAR);
        try (JarFile jar = new JarFile(pluginDirectory.resolve(PLUGIN_JAR).toFile())) {
            assertThat(jar.getEntry("META-INF/services/dev.onceflow.spi.factory.SinkFactory")).isNotNull();
            assertThat(jar.getEntry("com/example/recordfiles/RecordFilesSinkFactory.class")).isNotNull();
            assertThat(jar.stream().map(entry -> entry.getName()).filter(name -> name.startsWith("dev/onceflow/"))).isEmpty();
        }

        // Dropped into plugins/, run by the CLI whose class path has the runtime, not the template.
        assertThatThrownBy(() -> Class.forName("com.example.recordfiles.RecordFilesSinkFactory"))
                .isInstanceOf(ClassNotFoundException.class);
        Path plugins = dir.resolve("plugins");
        copyTree(pluginDirectory, plugins.resolve(PLUGIN));
        Run connectors = cli("connectors", PLUGIN, "--plugins", plugins.toString());
        assertThat(connectors.exit).as(connectors.output).isZero();
        assertThat(connectors.output).contains("sink record-files: writes each record to a file named after its id; "
                + "a replay overwrites (idempotent) (from " + plugins.resolve(PLUGIN) + ")");

        long rows = 300;
        int keys = 7;
        Path output = dir.resolve("records");
        Path job = dir.resolve("record-files-job.yaml");
        Files.writeString(job, """
                name: record-files-job
                parallelism: 2
                source:
                  type: datagen
                  options: {rows: %d, keys: %d, rows-per-second: 0}
                sink:
                  type: record-files
                  options: {directory: "%s", fsync: true}
                checkpoints:
                  interval: 200ms
                  mode: exactly-once
                  dir: %s
                """.formatted(rows, keys, output, dir.resolve("checkpoints")));
        Run run = cli("run", job.toString(), "--plugins", plugins.toString());
        assertThat(run.exit).as(run.output).isZero();

        EventGenerator generator = new EventGenerator(keys, 16);
        Map<String, Event> expected = new LinkedHashMap<>();
        LongStream.range(0, rows).mapToObj(generator::eventAt).forEach(event -> expected.put(event.id() + ".record", event));
        Map<String, Event> written = new LinkedHashMap<>();
        for (String name : filesUnder(output)) {
            String content = Files.readString(output.resolve(name));
            assertThat(content).as(name).endsWith("\n");
            written.put(name, EventFormat.parse(content.substring(0, content.length() - 1)));
        }
        assertThat(written).as("one file per record id, holding that record").containsExactlyInAnyOrderEntriesOf(expected);
    }

    /**
     * What {@code ./mvnw install -DskipTests -pl conformance-tests/tck -am} puts into a local
     * repository, from this build's jars and poms: the parent pom and every module the suite
     * depends on (its Onceflow dependencies, transitively).
     */
    private static Set<String> installForConnectorAuthors(Path root, Path repository) throws Exception {
        Map<String, Path> modules = new LinkedHashMap<>();
        for (String module : childTexts(document(root.resolve("pom.xml")).getDocumentElement(), "modules", "module")) {
            Path pom = root.resolve(module).resolve("pom.xml");
            modules.put(childText(document(pom).getDocumentElement(), "artifactId"), root.resolve(module));
        }
        installFile(root.resolve("pom.xml"), repository, "onceflow-parent", "pom");
        Set<String> installed = new TreeSet<>(List.of("onceflow-parent"));
        Deque<String> pending = new ArrayDeque<>(List.of("onceflow-conformance-tck"));
        while (!pending.isEmpty()) {
            String artifactId = pending.pop();
            if (!installed.add(artifactId)) {
                continue;
            }
            Path module = modules.get(artifactId);
            assertThat(module).as("module of " + artifactId).isNotNull();
            Path jar = module.resolve("target").resolve(artifactId + "-" + VERSION + ".jar");
            assertThat(jar).as("the jar of " + artifactId + ": build to the package phase (verify) with -am first").isRegularFile();
            installFile(module.resolve("pom.xml"), repository, artifactId, "pom");
            installFile(jar, repository, artifactId, "jar");
            for (Element dependency : dependencies(document(module.resolve("pom.xml")))) {
                String scope = childText(dependency, "scope");
                if ("dev.onceflow".equals(childText(dependency, "groupId")) && !"test".equals(scope)
                        && !"provided".equals(scope) && !"true".equals(childText(dependency, "optional"))) {
                    pending.push(childText(dependency, "artifactId"));
                }
            }
        }
        return installed;
    }

    private static void installFile(Path file, Path repository, String artifactId, String extension) throws IOException {
        Path target = repository.resolve("dev/onceflow").resolve(artifactId).resolve(VERSION)
                .resolve(artifactId + "-" + VERSION + "." + extension);
        Files.createDirectories(target.getParent());
        Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
    }

    private static Document document(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    /** The project's own dependencies, not those of its dependencyManagement or profiles. */
    private static List<Element> dependencies(Document pom) {
        List<Element> dependencies = new ArrayList<>();
        for (Element list : children(pom.getDocumentElement(), "dependencies")) {
            dependencies.addAll(children(list, "dependency"));
        }
        return dependencies;
    }

    private static List<String> childTexts(Element parent, String list, String item) {
        return children(parent, list).stream().flatMap(element -> children(element, item).stream())
                .map(element -> element.getTextContent().strip()).toList();
    }

    private static String childText(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.get(0).getTextContent().strip();
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i).getNodeType() == Node.ELEMENT_NODE && nodes.item(i).getNodeName().equals(name)) {
                found.add((Element) nodes.item(i));
            }
        }
        return found;
    }

    /** tests, failures, errors and skipped of the template's suite, from its surefire report. */
    private static List<Integer> suiteResult(Path project) throws Exception {
        Path report = project.resolve("target/surefire-reports/TEST-com.example.recordfiles.RecordFilesSinkConformanceTest.xml");
        Element suite = document(report).getDocumentElement();
        return Stream.of("tests", "failures", "errors", "skipped").map(suite::getAttribute).map(Integer::valueOf).toList();
    }

    /** Copies a directory, leaving out what a build produced there (target/). */
    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.filter(path -> !from.relativize(path).startsWith("target")).toList()) {
                Path copy = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(copy);
                } else {
                    Files.copy(path, copy);
                }
            }
        }
    }

    /** The regular files under a directory, relative to it, sorted. */
    private static List<String> filesUnder(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            return paths.filter(Files::isRegularFile).map(path -> directory.relativize(path).toString()).sorted().toList();
        }
    }

    private record Run(int exit, String output) {
    }

    /**
     * Maven, as the guide runs it (this clone's wrapper), offline, on the copied project: Onceflow's
     * artifacts from {@code repository}, everything else read-only from this build's own local
     * repository, so nothing is written into it.
     */
    private Run maven(Path root, Path project, Path repository, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(root.resolve("mvnw").toString(), "-B", "-o",
                "-Dmaven.repo.local=" + repository,
                "-Dmaven.repo.local.tail=" + System.getProperty("onceflow.maven.repository")));
        command.addAll(List.of(arguments));
        return start(command, project, 540);
    }

    /** The CLI in a child JVM with this test's class path: the runtime and the bundled connectors. */
    private Run cli(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "dev.onceflow.runtime.cli.OnceflowCli"));
        command.addAll(List.of(arguments));
        return start(command, dir, 150);
    }

    private Run start(List<String> command, Path workingDirectory, long timeoutSeconds) throws Exception {
        Path log = Files.createTempFile(dir, "run", ".log");
        Process process = new ProcessBuilder(command).directory(workingDirectory.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            assertThat(process.waitFor(timeoutSeconds, TimeUnit.SECONDS)).as(String.join(" ", command) + " ended").isTrue();
            return new Run(process.exitValue(), Files.readString(log));
        } finally {
            // Maven's test JVM and the suite's job JVMs too, should the build hang.
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}
