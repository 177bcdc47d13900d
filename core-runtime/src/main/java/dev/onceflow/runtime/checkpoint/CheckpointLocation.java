package dev.onceflow.runtime.checkpoint;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Where a checkpoint directory or file lives: a local path, or a URI such as
 * {@code hdfs://namenode:8020/onceflow/checkpoints} served by a {@link CheckpointFileSystem}
 * found on the class path. Values are absolute and normalized, so two locations naming the same
 * place are equal; a local location prints as its path, any other as its URI.
 *
 * @param uri an absolute, normalized URI without trailing slash; {@code file:} for local disk
 */
public record CheckpointLocation(URI uri) {

    /** A URI scheme of two or more characters, so {@code C:\x} stays a path. */
    private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]+:.*");

    public CheckpointLocation {
        if (!uri.isAbsolute() || uri.getPath() == null || !uri.getPath().startsWith("/")) {
            throw new IllegalArgumentException("checkpoint location must be an absolute path or URI, got " + uri);
        }
    }

    /** A path, or a URI with a scheme ({@code hdfs://host:port/dir}, {@code file:///dir}). */
    public static CheckpointLocation of(String location) {
        if (!SCHEME.matcher(location).matches()) {
            return of(Path.of(location));
        }
        URI uri;
        try {
            uri = new URI(location);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("'" + location + "' is not a valid checkpoint location: " + e.getMessage(), e);
        }
        if ("file".equals(uri.getScheme())) {
            return of(Path.of(uri));
        }
        String path = uri.normalize().getPath();
        if (path == null || path.isEmpty()) {
            path = "/";
        }
        return new CheckpointLocation(build(uri.getScheme(), uri.getAuthority(), path));
    }

    /** A local path, made absolute against the working directory. */
    public static CheckpointLocation of(Path path) {
        return new CheckpointLocation(build("file", null, path.toAbsolutePath().normalize().toString()));
    }

    private static URI build(String scheme, String authority, String path) {
        String trimmed = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        try {
            return new URI(scheme, authority, trimmed, null, null);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("invalid checkpoint location " + scheme + "://" + authority + path, e);
        }
    }

    /** Whether this is on local disk, served without any extra module. */
    public boolean isLocal() {
        return "file".equals(uri.getScheme());
    }

    /** The local path; only for {@linkplain #isLocal() local} locations. */
    public Path toPath() {
        if (!isLocal()) {
            throw new UnsupportedOperationException(this + " is not on the local file system");
        }
        return Path.of(uri);
    }

    /** The child {@code name}, a single path segment. */
    public CheckpointLocation resolve(String name) {
        if (name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("'" + name + "' is not a single file or directory name");
        }
        String path = uri.getPath();
        return new CheckpointLocation(build(uri.getScheme(), uri.getAuthority(),
                (path.endsWith("/") ? path : path + "/") + name));
    }

    /** The last segment of the path; empty for the root. */
    public String name() {
        String path = uri.getPath();
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** The enclosing directory; the root is its own parent. */
    public CheckpointLocation parent() {
        String path = uri.getPath();
        int slash = path.lastIndexOf('/');
        return new CheckpointLocation(build(uri.getScheme(), uri.getAuthority(), slash == 0 ? "/" : path.substring(0, slash)));
    }

    @Override
    public String toString() {
        return isLocal() ? toPath().toString() : uri.toString();
    }
}
