package dev.onceflow.connector.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import dev.onceflow.spi.sink.SinkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A server with PostgreSQL's default {@code max_prepared_transactions = 0} cannot run the sink: say so at start. */
class JdbcSinkWithoutPreparedTransactionsTest {

    private static PostgresServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = PostgresServer.start(0);
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void writerFailsAtStartNamingTheSettingAndTheValueToSet() {
        JdbcSink sink = JdbcSink.builder(server.url(), "events").user("postgres").build();

        assertThatThrownBy(() -> sink.createWriter(new SinkContext("job", "sink", 1, 3, 3, OptionalLong.empty(), "a1")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("PostgreSQL max_prepared_transactions is 0; set it to at least 6 in postgresql.conf "
                        + "(exactly-once mode prepares one transaction per subtask and checkpoint)");
    }
}
