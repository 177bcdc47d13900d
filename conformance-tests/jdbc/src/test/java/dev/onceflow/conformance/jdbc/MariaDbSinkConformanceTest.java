package dev.onceflow.conformance.jdbc;

/** The suite, plus database-side faults, against the JDBC sink's exactly-once mode (XA) on a real MariaDB. */
class MariaDbSinkConformanceTest extends JdbcConformanceSuite {

    @Override
    protected JdbcDatabase newDatabase() {
        return new MariaDbFixture("exactly-once");
    }
}
