package dev.onceflow.conformance.jdbc;

/** The suite, plus database-side faults, against the JDBC sink's write-ahead mode on a real MariaDB. */
class MariaDbWriteAheadSinkConformanceTest extends JdbcConformanceSuite {

    @Override
    protected JdbcDatabase newDatabase() {
        return new MariaDbFixture("write-ahead");
    }
}
