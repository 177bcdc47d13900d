package dev.onceflow.runtime.cli;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.FormatFactory;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The connectors and formats this process can use: every {@link SourceFactory},
 * {@link SinkFactory} and {@link FormatFactory} on the classpath, plus those in the jars of a
 * plugins directory.
 */
public final class Connectors {

    private final Map<String, SourceFactory> sources = new TreeMap<>();
    private final Map<String, SinkFactory> sinks = new TreeMap<>();
    private final Map<String, FormatFactory> formats = new TreeMap<>();

    private Connectors(ClassLoader loader) {
        for (SourceFactory factory : ServiceLoader.load(SourceFactory.class, loader)) {
            sources.putIfAbsent(factory.identifier(), factory);
        }
        for (SinkFactory factory : ServiceLoader.load(SinkFactory.class, loader)) {
            sinks.putIfAbsent(factory.identifier(), factory);
        }
        for (FormatFactory factory : ServiceLoader.load(FormatFactory.class, loader)) {
            formats.putIfAbsent(factory.identifier(), factory);
        }
    }

    /** Discovers connectors on the classpath and in {@code pluginsDirectory} (ignored if absent). */
    public static Connectors discover(Path pluginsDirectory) throws IOException {
        ClassLoader loader = Connectors.class.getClassLoader();
        if (pluginsDirectory != null && Files.isDirectory(pluginsDirectory)) {
            List<URL> jars = new ArrayList<>();
            try (Stream<Path> files = Files.list(pluginsDirectory)) {
                for (Path jar : files.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
                    try {
                        jars.add(jar.toUri().toURL());
                    } catch (MalformedURLException e) {
                        throw new IOException("bad plugin path " + jar, e);
                    }
                }
            }
            loader = new URLClassLoader(jars.toArray(URL[]::new), loader);
        }
        return new Connectors(loader);
    }

    public SourceFactory source(String identifier) throws JobFileException {
        SourceFactory factory = sources.get(identifier);
        if (factory == null) {
            throw new JobFileException("no source connector '" + identifier + "' on the classpath or in plugins/; available: "
                    + String.join(", ", sources.keySet()));
        }
        return factory;
    }

    public SinkFactory sink(String identifier) throws JobFileException {
        SinkFactory factory = sinks.get(identifier);
        if (factory == null) {
            throw new JobFileException("no sink connector '" + identifier + "' on the classpath or in plugins/; available: "
                    + String.join(", ", sinks.keySet()));
        }
        return factory;
    }

    public FormatFactory format(String identifier) throws JobFileException {
        FormatFactory factory = formats.get(identifier);
        if (factory == null) {
            throw new JobFileException("no format '" + identifier + "' on the classpath or in plugins/; available: "
                    + String.join(", ", formats.keySet()));
        }
        return factory;
    }

    /**
     * A format a connector asks for by name besides the job file's (a Kafka source's key format),
     * its options validated as a job file's format options are.
     *
     * @param owner how errors name what asked, such as {@code "source 'kafka' key-format"}
     * @throws OptionException with one line naming {@code owner}, if no format has that name or an
     *     option is unknown or invalid
     */
    public Format format(String identifier, Map<String, String> options, String owner) {
        FormatFactory factory = formats.get(identifier);
        if (factory == null) {
            throw new OptionException(owner + ": no format '" + identifier + "' on the classpath or in plugins/; "
                    + "available: " + String.join(", ", formats.keySet()));
        }
        return new Format(factory, OptionValues.validate(owner + " '" + identifier + "'", options, factory.options()));
    }

    public Map<String, FormatFactory> formats() {
        return formats;
    }

    public Map<String, SourceFactory> sources() {
        return sources;
    }

    public Map<String, SinkFactory> sinks() {
        return sinks;
    }
}
