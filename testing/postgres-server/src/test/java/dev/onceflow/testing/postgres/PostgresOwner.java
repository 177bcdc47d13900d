package dev.onceflow.testing.postgres;

import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A test JVM in miniature, for {@link EmbeddedPostgresServerTest}: starts a server, prints its pid
 * and data directory, and waits to be killed.
 */
final class PostgresOwner {

    static final String PREFIX = "postgres ";

    private PostgresOwner() {
    }

    public static void main(String[] args) throws Exception {
        EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(Map.of());
        System.out.println(PREFIX + postgres.pid().orElseThrow() + " " + postgres.dataDirectory());
        System.out.flush();
        new CountDownLatch(1).await(); // until killed
    }
}
