package dev.onceflow.spi.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Rule 2PC-9: every transaction id names one job, sink, subtask and checkpoint. */
class TransactionIdTest {

    @Test
    void namesThatJoinTheSameWithADashGiveDifferentIdsAndPrefixes() {
        SinkContext orders = context("orders", "eu-db");
        SinkContext ordersEu = context("orders-eu", "db");

        assertThat(orders.transactionId(0, 7)).isEqualTo("orders:eu-db:0:7");
        assertThat(ordersEu.transactionId(0, 7)).isEqualTo("orders-eu:db:0:7");
        assertThat(ordersEu.transactionId(0, 7)).doesNotStartWith(orders.transactionIdPrefix());
        assertThat(orders.transactionId(0, 7)).doesNotStartWith(ordersEu.transactionIdPrefix());
        assertThat(orders.ownTransactionId(ordersEu.transactionId(0, 7))).isEmpty();
        assertThat(orders.ownTransactionId(orders.transactionId(3, 9)))
                .contains(new TransactionId("orders", "eu-db", 3, 9));
    }

    @Test
    void anyNameRoundTripsAndTheIdIsPlainAscii() {
        TransactionId id = new TransactionId("jöb 'x':%y", "sink\\1", 2, Long.MAX_VALUE);
        String encoded = id.encode();

        assertThat(encoded).matches("[A-Za-z0-9._%:-]+");
        assertThat(TransactionId.parse(encoded)).contains(id);
    }

    @Test
    void onlyTheCanonicalSpellingParses() {
        assertThat(TransactionId.parse("orders:eu-db:0:7")).isPresent();
        assertThat(TransactionId.parse("%6Frders:eu-db:0:7")).as("escaped plain character").isEmpty();
        assertThat(TransactionId.parse("orders:eu-db:00:7")).as("leading zero").isEmpty();
        assertThat(TransactionId.parse("orders:eu:db:0:7")).isEmpty();
        assertThat(TransactionId.parse("orders-eu-db-0-7")).isEmpty();
    }

    /** Ids prepared before 2PC-9 are matched against this job's and sink's exact old prefix. */
    @Test
    void oldStyleIdsOfThisJobAndSinkAreStillRecognised() {
        SinkContext orders = context("orders", "eu-db");

        assertThat(orders.ownTransactionId("orders-eu-db-1-12")).contains(new TransactionId("orders", "eu-db", 1, 12));
        assertThat(orders.ownTransactionId("orders-eu-db-x-1-12")).isEmpty();
        assertThat(orders.ownTransactionId("orders-eu-db2-1-12")).isEmpty();
        assertThat(TransactionId.parseLegacy("orders-eu-db-1-12", "orders", "eu")).isEqualTo(Optional.empty());
    }

    private static SinkContext context(String job, String sink) {
        return new SinkContext(job, sink, 0, 1, 1, OptionalLong.empty(), "attempt");
    }
}
