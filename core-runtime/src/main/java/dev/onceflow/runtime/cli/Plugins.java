package dev.onceflow.runtime.cli;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Driver;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugins of a plugins directory, each with a class loader of its own
 * ({@link PluginClassLoader}): every subdirectory is one plugin made of the jars in it (at any
 * depth), and every jar directly in the directory is one plugin by itself (a jar with its
 * dependencies inside, or one without any). Other files are ignored.
 *
 * <p>JDBC drivers a plugin brings are registered with {@link java.sql.DriverManager} when the
 * plugin is loaded: {@code DriverManager} finds drivers only through the class loaders it is
 * shown, and a plugin calling {@code DriverManager.getConnection} is allowed the drivers its own
 * loader can see.
 */
final class Plugins {

    private static final Logger LOG = LoggerFactory.getLogger(Plugins.class);

    /** One plugin: where it lies (a directory or a jar) and its loader. */
    record Plugin(Path location, ClassLoader loader) {
    }

    private final Path directory;
    private final List<Plugin> plugins;
    private final ClassLoader contextLoader;

    private Plugins(Path directory, List<Plugin> plugins, ClassLoader parent) {
        this.directory = directory;
        this.plugins = List.copyOf(plugins);
        this.contextLoader = plugins.isEmpty() ? parent : new ContextClassLoader(parent, this.plugins);
    }

    /** No plugins: the classpath only. */
    static Plugins none(ClassLoader parent) {
        return new Plugins(null, List.of(), parent);
    }

    /**
     * The plugins of {@code directory}, or none if it does not exist.
     *
     * @throws IOException if the directory cannot be listed
     */
    static Plugins discover(Path directory, ClassLoader parent) throws IOException {
        if (directory == null || !Files.isDirectory(directory)) {
            return new Plugins(directory, List.of(), parent);
        }
        List<Plugin> plugins = new ArrayList<>();
        List<Path> entries;
        try (Stream<Path> list = Files.list(directory)) {
            entries = list.sorted().toList();
        }
        for (Path entry : entries) {
            List<Path> jars;
            if (Files.isDirectory(entry)) {
                try (Stream<Path> walk = Files.walk(entry)) {
                    jars = walk.filter(Plugins::isJar).sorted().toList();
                }
                if (jars.isEmpty()) {
                    LOG.warn("Plugin directory {} holds no jar; ignored", entry);
                    continue;
                }
            } else if (isJar(entry)) {
                jars = List.of(entry);
            } else {
                continue;
            }
            URL[] urls = new URL[jars.size()];
            for (int i = 0; i < urls.length; i++) {
                urls[i] = jars.get(i).toUri().toURL();
            }
            PluginClassLoader loader = new PluginClassLoader(entry.getFileName().toString(), urls, parent);
            registerJdbcDrivers(loader);
            plugins.add(new Plugin(entry, loader));
        }
        return new Plugins(directory, plugins, parent);
    }

    private static boolean isJar(Path path) {
        return Files.isRegularFile(path) && path.getFileName().toString().endsWith(".jar");
    }

    /**
     * Loads and initializes the drivers the plugin's own jars declare: a driver registers itself with
     * {@code DriverManager} when its class is initialized.
     */
    private static void registerJdbcDrivers(ClassLoader loader) {
        ServiceLoader.load(Driver.class, loader).stream()
                .filter(provider -> provider.type().getClassLoader() == loader)
                .forEach(provider -> {
                    try {
                        Class.forName(provider.type().getName(), true, loader);
                    } catch (ClassNotFoundException | LinkageError e) {
                        LOG.warn("JDBC driver {} of plugin {} could not be loaded: {}", provider.type().getName(),
                                loader.getName(), e.toString());
                    }
                });
    }

    /** The directory the plugins came from, or {@code null}. */
    Path directory() {
        return directory;
    }

    List<Plugin> plugins() {
        return plugins;
    }

    /**
     * The context class loader for threads that run plugin code: the runtime's classes first, then
     * each plugin's, so a library that looks up classes or resources through the context class
     * loader (JDBC drivers, JAXB, {@code ServiceLoader} in libraries) finds a plugin's. A class that
     * the runtime and a plugin both hold is found as the runtime's this way; code that a plugin
     * links directly always gets its own.
     */
    ClassLoader contextLoader() {
        return contextLoader;
    }

    /** The runtime's loader first, then each plugin's own jars, in directory order. */
    private static final class ContextClassLoader extends ClassLoader {

        static {
            ClassLoader.registerAsParallelCapable();
        }

        private final List<Plugin> plugins;

        ContextClassLoader(ClassLoader parent, List<Plugin> plugins) {
            super("onceflow-plugins", parent);
            this.plugins = plugins;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            for (Plugin plugin : plugins) {
                try {
                    return plugin.loader().loadClass(name);
                } catch (ClassNotFoundException e) {
                    // not this plugin's
                }
            }
            throw new ClassNotFoundException(name);
        }

        @Override
        protected URL findResource(String name) {
            for (Plugin plugin : plugins) {
                URL url = ((PluginClassLoader) plugin.loader()).findResource(name);
                if (url != null) {
                    return url;
                }
            }
            return null;
        }

        @Override
        protected Enumeration<URL> findResources(String name) throws IOException {
            List<URL> all = new ArrayList<>();
            for (Plugin plugin : plugins) {
                all.addAll(Collections.list(((PluginClassLoader) plugin.loader()).findResources(name)));
            }
            return Collections.enumeration(all);
        }
    }
}
