package dev.onceflow.conformance.jdbc;

/**
 * The suite against the JDBC sink's idempotent mode. The table's final state is what the suite
 * checks; upserts by id make replays overwrite rather than duplicate.
 */
class JdbcIdempotentSinkConformanceTest extends JdbcConformanceSuite {

    @Override
    protected JdbcDatabase newDatabase() {
        return new EmbeddedPostgresFixture("idempotent");
    }
}
