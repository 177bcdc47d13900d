package dev.onceflow.runtime.cli;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The class loader of one plugin: its own jars first, then the runtime's, so that a plugin can
 * bring the versions of the libraries it was built and tested with (a JDBC driver, a Jackson, a
 * client library) whatever the runtime or another plugin holds.
 *
 * <p>A few packages come from the runtime first, whatever the plugin's jars hold: the JDK's, the
 * SPI's (a plugin's factory must implement the very {@code SourceFactory} the runtime calls) and
 * slf4j's API (a plugin logs where the runtime logs). A class of such a package that the runtime
 * does not have is still looked up in the plugin's jars.
 */
final class PluginClassLoader extends URLClassLoader {

    static {
        ClassLoader.registerAsParallelCapable();
    }

    /** Package prefixes every plugin shares with the runtime. */
    static final List<String> SHARED = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.", "org.w3c.dom.",
            "org.xml.sax.", "org.ietf.jgss.", "dev.onceflow.spi.", "org.slf4j.");

    PluginClassLoader(String name, URL[] jars, ClassLoader parent) {
        super(name, jars, parent);
    }

    static boolean shared(String className) {
        for (String prefix : SHARED) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null) {
                loaded = shared(name) ? parentThenOwn(name) : ownThenParent(name);
            }
            if (resolve) {
                resolveClass(loaded);
            }
            return loaded;
        }
    }

    private Class<?> parentThenOwn(String name) throws ClassNotFoundException {
        try {
            return getParent().loadClass(name);
        } catch (ClassNotFoundException e) {
            return findClass(name);
        }
    }

    private Class<?> ownThenParent(String name) throws ClassNotFoundException {
        try {
            return findClass(name);
        } catch (ClassNotFoundException e) {
            return getParent().loadClass(name);
        }
    }

    @Override
    public URL getResource(String name) {
        URL own = findResource(name);
        return own != null ? own : getParent().getResource(name);
    }

    /** The plugin's resources of that name first, then the runtime's. */
    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        List<URL> all = new ArrayList<>(Collections.list(findResources(name)));
        all.addAll(Collections.list(getParent().getResources(name)));
        return Collections.enumeration(all);
    }
}
