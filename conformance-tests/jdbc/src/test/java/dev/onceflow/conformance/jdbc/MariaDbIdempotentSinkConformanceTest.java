package dev.onceflow.conformance.jdbc;

/** The suite, plus database-side faults, against the JDBC sink's idempotent mode (final table) on a real MariaDB. */
class MariaDbIdempotentSinkConformanceTest extends JdbcConformanceSuite {

    @Override
    protected JdbcDatabase newDatabase() {
        return new MariaDbFixture("idempotent");
    }
}
