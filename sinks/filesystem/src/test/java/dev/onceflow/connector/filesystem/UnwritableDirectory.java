package dev.onceflow.connector.filesystem;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Makes a directory unwritable for this process, for as long as it is open: read-only permissions,
 * and for root, who writes regardless of them, the immutable attribute ({@code chattr +i}). Where
 * neither works the test is skipped, saying why.
 */
final class UnwritableDirectory implements AutoCloseable {

    private final Path directory;
    private final boolean immutable;

    private UnwritableDirectory(Path directory, boolean immutable) {
        this.directory = directory;
        this.immutable = immutable;
    }

    static UnwritableDirectory of(Path directory) throws IOException, InterruptedException {
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("r-xr-xr-x"));
        if (!Files.isWritable(directory)) {
            return new UnwritableDirectory(directory, false);
        }
        boolean set = chattr("+i", directory);
        UnwritableDirectory locked = new UnwritableDirectory(directory, set);
        if (!set || Files.isWritable(directory)) {
            locked.close();
            Assumptions.abort("cannot make " + directory + " unwritable for this user (root without chattr +i)");
        }
        return locked;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (immutable && !chattr("-i", directory)) {
            throw new IOException("chattr -i " + directory + " failed; remove the attribute by hand");
        }
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static boolean chattr(String flag, Path directory) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder("chattr", flag, directory.toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            return false; // no chattr on this machine
        }
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return false;
        }
        return process.exitValue() == 0;
    }
}
