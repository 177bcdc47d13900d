package dev.onceflow.conformance.jdbc;

import dev.onceflow.conformance.SinkExternalSystem;

/** A database the JDBC sink's suite runs against, with the faults it injects on the database's side. */
interface JdbcDatabase extends SinkExternalSystem {

    /** Stops the server and starts it again on the same data and port, keeping prepared transactions. */
    void restart() throws Exception;

    /** Ends every session of the sink that is inside a transaction; returns how many it ended. */
    int terminateSinkSessionsInTransaction() throws Exception;
}
