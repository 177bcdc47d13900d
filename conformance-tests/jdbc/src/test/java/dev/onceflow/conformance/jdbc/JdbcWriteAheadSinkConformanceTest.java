package dev.onceflow.conformance.jdbc;

/** The suite against the JDBC sink's write-ahead mode: rows and checkpoint marker in one transaction. */
class JdbcWriteAheadSinkConformanceTest extends JdbcConformanceSuite {

    @Override
    protected JdbcDatabase newDatabase() {
        return new EmbeddedPostgresFixture("write-ahead");
    }
}
