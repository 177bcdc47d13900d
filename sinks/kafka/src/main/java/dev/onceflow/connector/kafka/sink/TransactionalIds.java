package dev.onceflow.connector.kafka.sink;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink's transactional ids and their cleanup. Every id is {@code <prefix>-<subtask>-<slot>}:
 * a number from the exactly-once writer's bounded pool, or {@code wal} for the write-ahead
 * writer's single producer. A bounded pool keeps the broker's transaction state small (an id's
 * state lives for {@code transactional.id.expiration.ms}, 7 days by default); ids never embed a
 * checkpoint id.
 */
final class TransactionalIds {

    static final String WRITE_AHEAD_SLOT = "wal";
    private static final Logger LOG = LoggerFactory.getLogger(TransactionalIds.class);
    private static final long ADMIN_TIMEOUT_SECONDS = 60;

    private TransactionalIds() {
    }

    static String of(String prefix, int subtask, int slot) {
        return prefix + "-" + subtask + "-" + slot;
    }

    static String writeAhead(String prefix, int subtask) {
        return prefix + "-" + subtask + "-" + WRITE_AHEAD_SLOT;
    }

    /**
     * The subtask of one of this sink's ids, or empty if {@code id} is not one: exactly two parts
     * after {@code <prefix>-}, so a sink whose prefix extends this one's ({@code orders} and
     * {@code orders-eu}) is never mistaken for it.
     */
    static OptionalInt subtaskOf(String prefix, String id) {
        if (!id.startsWith(prefix + "-")) {
            return OptionalInt.empty();
        }
        String[] parts = id.substring(prefix.length() + 1).split("-", -1);
        if (parts.length != 2 || !isNumber(parts[0])
                || !(isNumber(parts[1]) || parts[1].equals(WRITE_AHEAD_SLOT))) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(parts[0]));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    private static boolean isNumber(String s) {
        return !s.isEmpty() && s.chars().allMatch(Character::isDigit);
    }

    /**
     * Rule 2PC-7: fences every open transaction of this sink (an id of exactly one of
     * {@code prefixes}, a subtask and a slot; 2PC-9) whose subtask {@code owned} accepts,
     * which aborts it. An open transaction of a dead producer would otherwise hold back every
     * {@code read_committed} reader of its partitions until {@code transaction.timeout.ms} runs out.
     *
     * @return the ids fenced
     */
    static List<String> abortOpen(Admin admin, List<String> prefixes, IntPredicate owned) throws Exception {
        List<String> lingering = new ArrayList<>();
        for (TransactionListing listing : admin.listTransactions(new ListTransactionsOptions()
                        .filterStates(List.of(TransactionState.ONGOING)))
                .all().get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            for (String prefix : prefixes) {
                OptionalInt subtask = subtaskOf(prefix, listing.transactionalId());
                if (subtask.isPresent() && owned.test(subtask.getAsInt())) {
                    lingering.add(listing.transactionalId());
                    break;
                }
            }
        }
        if (!lingering.isEmpty()) {
            try {
                admin.fenceProducers(lingering).all().get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new IllegalStateException("cannot abort the lingering transactions " + lingering + ": "
                        + e.getCause(), e.getCause());
            }
            LOG.info("Aborted {} lingering transaction(s) of an earlier attempt: {}", lingering.size(), lingering);
        }
        return lingering;
    }
}
