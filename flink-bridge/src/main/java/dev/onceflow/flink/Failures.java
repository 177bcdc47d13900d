package dev.onceflow.flink;

import java.io.IOException;
import java.util.concurrent.Callable;

/** Onceflow connectors throw {@code Exception}; Flink's sink methods declare {@link IOException}. */
final class Failures {

    private Failures() {
    }

    /** Runs {@code call}; a checked exception other than {@link IOException} is wrapped, naming {@code what}. */
    static <T> T io(String what, Callable<T> call) throws IOException {
        try {
            return call.call();
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + " was interrupted", e);
        } catch (Exception e) {
            throw new IOException(what + " failed: " + e, e);
        }
    }
}
