package dev.onceflow.runtime.cli;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.FormatFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The connectors and formats this process can use: every {@link SourceFactory},
 * {@link SinkFactory} and {@link FormatFactory} on the classpath, plus those of the plugins in a
 * plugins directory, each plugin with a class loader of its own ({@link Plugins}).
 *
 * <p>Two providers of one name are never chosen between silently: asking for such a name fails,
 * naming where each came from.
 */
public final class Connectors {

    private final Plugins plugins;
    private final Map<String, SourceFactory> sources = new TreeMap<>();
    private final Map<String, SinkFactory> sinks = new TreeMap<>();
    private final Map<String, FormatFactory> formats = new TreeMap<>();
    /** Where each factory came from: "classpath" or a plugin's location. */
    private final Map<Object, String> origins = new IdentityHashMap<>();
    /** "source x" -> every origin of a name provided more than once. */
    private final Map<String, List<String>> clashes = new TreeMap<>();

    private Connectors(Plugins plugins, ClassLoader classpath) {
        this.plugins = plugins;
        collect(classpath, null, "classpath");
        for (Plugins.Plugin plugin : plugins.plugins()) {
            collect(plugin.loader(), plugin.loader(), plugin.location().toString());
        }
    }

    /** The factories {@code loader} provides; of a plugin's loader ({@code own}), only its own classes. */
    private void collect(ClassLoader loader, ClassLoader own, String origin) {
        for (SourceFactory factory : ServiceLoader.load(SourceFactory.class, loader)) {
            add("source", sources, factory, factory.identifier(), own, origin);
        }
        for (SinkFactory factory : ServiceLoader.load(SinkFactory.class, loader)) {
            add("sink", sinks, factory, factory.identifier(), own, origin);
        }
        for (FormatFactory factory : ServiceLoader.load(FormatFactory.class, loader)) {
            add("format", formats, factory, factory.identifier(), own, origin);
        }
    }

    private <F> void add(String kind, Map<String, F> byName, F factory, String identifier, ClassLoader own,
            String origin) {
        if (own != null && factory.getClass().getClassLoader() != own) {
            return; // the runtime's own factory, seen again through the plugin's parent
        }
        F earlier = byName.putIfAbsent(identifier, factory);
        origins.put(factory, origin);
        if (earlier != null) {
            clashes.computeIfAbsent(kind + " '" + identifier + "'", k -> new ArrayList<>(List.of(origins.get(earlier))))
                    .add(origin);
        }
    }

    /** Discovers connectors on the classpath and in {@code pluginsDirectory} (none if absent or {@code null}). */
    public static Connectors discover(Path pluginsDirectory) throws IOException {
        ClassLoader classpath = Connectors.class.getClassLoader();
        return new Connectors(Plugins.discover(pluginsDirectory, classpath), classpath);
    }

    /**
     * The class loader to make the context class loader of threads that run plugin code: the
     * runtime's classes, then each plugin's. The threads a job starts inherit it from the thread
     * that runs the job.
     */
    public ClassLoader contextClassLoader() {
        return plugins.contextLoader();
    }

    /** Where {@code factory} came from: {@code classpath}, or the plugin's directory or jar. */
    public String origin(Object factory) {
        return origins.getOrDefault(factory, "classpath");
    }

    /** "on the classpath or in plugins/", naming the directory searched. */
    private String searched() {
        return plugins.directory() == null ? "on the classpath"
                : "on the classpath or in " + plugins.directory().toString().replace('\\', '/') + "/";
    }

    /** Why {@code identifier} cannot be used because several provide it, or {@code null}. */
    private String clash(String kind, String identifier) {
        List<String> from = clashes.get(kind + " '" + identifier + "'");
        return from == null ? null : kind + " '" + identifier + "' is provided more than once, by " + String.join(
                " and ", from) + "; remove all but one";
    }

    public SourceFactory source(String identifier) throws JobFileException {
        SourceFactory factory = sources.get(identifier);
        if (factory == null) {
            throw new JobFileException("no source connector '" + identifier + "' " + searched() + "; available: "
                    + String.join(", ", sources.keySet()));
        }
        String clash = clash("source", identifier);
        if (clash != null) {
            throw new JobFileException(clash);
        }
        return factory;
    }

    public SinkFactory sink(String identifier) throws JobFileException {
        SinkFactory factory = sinks.get(identifier);
        if (factory == null) {
            throw new JobFileException("no sink connector '" + identifier + "' " + searched() + "; available: "
                    + String.join(", ", sinks.keySet()));
        }
        String clash = clash("sink", identifier);
        if (clash != null) {
            throw new JobFileException(clash);
        }
        return factory;
    }

    public FormatFactory format(String identifier) throws JobFileException {
        FormatFactory factory = formats.get(identifier);
        if (factory == null) {
            throw new JobFileException("no format '" + identifier + "' " + searched() + "; available: "
                    + String.join(", ", formats.keySet()));
        }
        String clash = clash("format", identifier);
        if (clash != null) {
            throw new JobFileException(clash);
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
            throw new OptionException(owner + ": no format '" + identifier + "' " + searched() + "; "
                + "available: " + String.join(", ", formats.keySet()));
        }
        String clash = clash("format", identifier);
        if (clash != null) {
            throw new OptionException(owner + ": " + clash);
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
