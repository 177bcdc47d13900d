package dev.onceflow.conformance.jdbc;

/**
 * The whole sink suite, plus database-side faults, against the JDBC sink's exactly-once mode on a
 * real PostgreSQL. The fixture ({@link EmbeddedPostgresFixture}) is all a connector needs.
 */
class JdbcSinkConformanceTest extends JdbcConformanceSuite {

    @Override
    protected JdbcDatabase newDatabase() {
        return new EmbeddedPostgresFixture("exactly-once");
    }
}
