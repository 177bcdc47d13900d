package dev.onceflow.testing.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;

/**
 * The main class of {@link KafkaBrokerProcess}'s child JVM: runs {@code kafka.Kafka} and ends the
 * child once the test JVM that started it is gone.
 *
 * <p>A test JVM that is SIGKILLed (a CI timeout, a killed Maven) runs no shutdown hook, so the hook
 * that kills the broker never runs, and the broker would go on holding its ports, half a gigabyte
 * of heap and its directory until the machine reboots. What does reach the child is the end of its
 * standard input: the test JVM holds the other end of that pipe, and the kernel closes it when that
 * JVM exits, however it exits. On that end of input this deletes the broker's directory (best
 * effort: the broker is still running and may recreate a file) and halts the JVM, which is what
 * {@link KafkaBrokerProcess#kill()} does to it.
 *
 * <p>Only a pipe's end means that: with any other standard input (a broker started by hand) the
 * guard stays off. The Elasticsearch test node does the same with a shell wrapper, since its
 * server is started by the distribution's scripts; it stops the node with SIGTERM and leaves the
 * deleting to the next run, where this broker, a JVM of ours, can delete its own directory.
 *
 * <p>Arguments: the broker's directory, then {@code kafka.Kafka}'s own arguments.
 */
final class OrphanGuard {

    /** The exit status of a JVM halted because its test JVM is gone: 128 + SIGKILL, as after a kill. */
    static final int ORPHANED_STATUS = 137;

    private OrphanGuard() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            throw new IllegalArgumentException("usage: OrphanGuard <broker directory> <kafka.Kafka arguments...>");
        }
        Path directory = Path.of(args[0]);
        if (inputIsAPipe()) {
            Thread watcher = new Thread(() -> haltWhenInputEnds(System.in, directory), "halt-when-test-jvm-is-gone");
            watcher.setDaemon(true);
            watcher.start();
        } else {
            // Started by hand, with the input from a file or /dev/null: its end says nothing.
            System.err.println("OrphanGuard: standard input is not a pipe; the broker will not stop by itself");
        }
        kafka.Kafka.main(Arrays.copyOfRange(args, 1, args.length));
    }

    private static boolean inputIsAPipe() {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/fd/0")).toString().startsWith("pipe:");
        } catch (IOException | UnsupportedOperationException e) {
            return false; // no /proc (not Linux): the shutdown hook of the test JVM is all there is
        }
    }

    private static void haltWhenInputEnds(InputStream in, Path directory) {
        byte[] ignored = new byte[64];
        try {
            while (in.read(ignored) >= 0) {
                // The test JVM writes nothing; only the end of input matters.
            }
        } catch (IOException e) {
            // A broken pipe means the same: nobody is at the other end any more.
        }
        System.err.println("OrphanGuard: the test JVM that started this broker is gone; deleting " + directory
                + " and halting");
        // Moved aside first, so a file the running broker creates meanwhile (a checkpoint file, a
        // new segment) fails instead of landing in a directory being deleted.
        Path doomed = directory.resolveSibling(directory.getFileName() + ".orphaned");
        try {
            Files.move(directory, doomed, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            doomed = directory;
        }
        SingleNodeKRaft.deleteQuietly(doomed);
        SingleNodeKRaft.deleteQuietly(doomed); // once more, for what was being written during the first
        Runtime.getRuntime().halt(ORPHANED_STATUS);
    }
}
