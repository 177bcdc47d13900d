package dev.onceflow.connector.kafka.sink;

import dev.onceflow.connector.kafka.sink.ProducerInternals.ProducerIdAndEpoch;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.sink.PreCommitted;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subtask of the exactly-once Kafka sink.
 *
 * <p><b>Transactions.</b> A small pool of transactional producers, {@code <prefix>-<subtask>-<slot>};
 * a slot is busy from {@link #beginTransaction} until its transaction is committed or aborted, so
 * with one checkpoint in flight two slots suffice (one pre-committed, one open). The pool grows
 * only when more checkpoints are pending than that (declined checkpoints leave their transactions
 * pending until a later one completes), with a warning.
 *
 * <p><b>Crash recovery.</b> A handle records the transactional id, producer id and epoch, and
 * where its first record was written. Another process commits it by resuming the transaction
 * ({@link ProducerInternals}). When the broker refuses, what a {@code read_committed} reader sees
 * at that record decides ({@link TransactionProbe}): visible means committed before (a second
 * commit after a crash between commit and the next checkpoint, rule 2PC-4) and is success;
 * skipped means the broker aborted it, which it does when the transaction outlives
 * {@code transaction.timeout.ms}: its records are gone, and the writer fails the job with a message
 * that says so (2PC-5), never success. The writer requires transaction protocol 2 (brokers 4.0 and
 * later, the default for new clusters), the protocol resuming was checked against.
 *
 * <p><b>Off the task thread.</b> The wait for the broker to acknowledge a transaction's last
 * records runs on a thread of the writer's own ({@link #preCommitAsync}): at the barrier the task
 * thread only takes the handle and goes on with the next transaction in another slot, and the
 * runtime writes the task's state while those records are in flight.
 */
final class ExactlyOnceKafkaWriter<T> implements TransactionalWriter<T, KafkaTransaction> {

    private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceKafkaWriter.class);

    private final KafkaSinkSettings<T> settings;
    private final KafkaRecords.Converter<T> converter;
    private final SinkContext context;
    private final ProducerInternals internals;
    private final String prefix;
    private final List<Slot> slots = new ArrayList<>();
    /** Waits for pre-committed transactions' records to be acknowledged, one at a time, off the task thread. */
    private final ExecutorService flushThread;
    private Admin admin;

    ExactlyOnceKafkaWriter(KafkaSinkSettings<T> settings, SinkContext context, ProducerInternals internals) {
        this.settings = settings;
        this.converter = settings.records().converter();
        this.context = context;
        this.internals = internals;
        this.prefix = settings.prefix(context);
        checkTransactionTimeout(settings.producer().transactionTimeout(), context);
        this.flushThread = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "onceflow-kafka-flush-" + context.sinkUid() + "-" + context.subtaskIndex());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Refuses a transaction timeout the job's own checkpoint timeout and restarts can outlast: the
     * broker would abort a pre-committed transaction before the job gets to commit it.
     */
    static void checkTransactionTimeout(Duration transactionTimeout, SinkContext context) {
        context.maxCommitWait().ifPresent(wait -> {
            if (transactionTimeout.compareTo(wait) <= 0) {
                throw new IllegalArgumentException("transaction-timeout " + Option.asText(transactionTimeout)
                        + " is not longer than the longest a pre-committed transaction can wait for its commit in this "
                        + "job (" + Option.asText(wait) + ": the checkpoint timeout plus the restart strategy's delays),"
                        + " so the broker could abort it and lose its records: set transaction-timeout above "
                        + Option.asText(wait) + " (the brokers' transaction.max.timeout.ms must allow it), lower the "
                        + "checkpoint timeout, or use mode write-ahead");
            }
        });
    }

    /** A pooled transactional producer and the transaction it holds, if any. */
    private static final class Slot {
        final String transactionalId;
        final KafkaProducer<byte[], byte[]> producer;
        final SendErrors errors = new SendErrors();
        KafkaTransaction transaction;
        long sent;

        Slot(String transactionalId, KafkaProducer<byte[], byte[]> producer) {
            this.transactionalId = transactionalId;
            this.producer = producer;
        }
    }

    @Override
    public KafkaTransaction beginTransaction(long checkpointId) {
        Slot slot = slots.stream().filter(s -> s.transaction == null).findFirst().orElseGet(this::newSlot);
        slot.producer.beginTransaction();
        slot.sent = 0;
        slot.errors.reset();
        slot.transaction = KafkaTransaction.open(slot.transactionalId, checkpointId);
        return slot.transaction;
    }

    private Slot newSlot() {
        // The lowest index no live producer has: a producer discarded after an error leaves a gap,
        // and a second producer with a live one's id would fence it, aborting its transaction.
        int index = 0;
        while (indexInUse(index)) {
            index++;
        }
        if (slots.size() >= context.maxOpenTransactionsPerWriter()) {
            LOG.warn("{} checkpoints' transactions are pending in subtask {}: growing its pool of transactional ids "
                    + "to {}", slots.size(), context.subtaskIndex(), slots.size() + 1);
        }
        String id = TransactionalIds.of(prefix, context.subtaskIndex(), index);
        KafkaProducer<byte[], byte[]> producer = settings.producer().openTransactional(id);
        if (!internals.usesTransactionV2(producer)) {
            producer.close(Duration.ZERO);
            throw new IllegalStateException("the Kafka sink's exactly-once mode needs transaction protocol 2 "
                    + "(brokers 4.0 or later with the feature transaction.version=2; upgrade it with "
                    + "'kafka-features.sh upgrade --feature transaction.version=2'), or use mode write-ahead");
        }
        Slot slot = new Slot(id, producer);
        slots.add(slot);
        return slot;
    }

    private boolean indexInUse(int index) {
        String id = TransactionalIds.of(prefix, context.subtaskIndex(), index);
        return slots.stream().anyMatch(slot -> slot.transactionalId.equals(id));
    }

    @Override
    public void write(KafkaTransaction transaction, T record) {
        Slot slot = holding(transaction);
        slot.errors.check(settings.records().topic());
        ProducerRecord<byte[], byte[]> converted = converter.toRecord(record);
        if (converted != null) {
            slot.producer.send(converted, slot.errors);
            slot.sent++;
        }
    }

    /** Waits for {@link #preCommitAsync}'s stage; the runtime calls preCommitAsync itself. */
    @Override
    public KafkaTransaction preCommit(KafkaTransaction transaction) throws Exception {
        return preCommitAsync(transaction).awaitDurable();
    }

    /**
     * 2PC-2 once the stage completes: every record of the transaction is acknowledged by the
     * broker (the producer's {@code acks=all}), and the handle holds what another producer needs to
     * resume and commit it. The flush that waits for those acknowledgements runs on the writer's
     * flush thread, which touches only this transaction's producer from here on: the task thread
     * goes on with the next transaction in another slot, and the runtime writes the task's state
     * while the last batches are in flight.
     *
     * <p>The handle must name one written record for {@link TransactionProbe} (see
     * {@link #requireCommitted}). Its position is known only once the broker acknowledged it, which
     * the first record of a transaction usually is long before its barrier; if none is yet, this
     * flushes on the task thread, as before.
     */
    @Override
    public PreCommitted<KafkaTransaction> preCommitAsync(KafkaTransaction transaction) {
        Slot slot = holding(transaction);
        String topic = settings.records().topic();
        slot.errors.check(topic);
        boolean acknowledged = slot.sent == 0;
        if (!acknowledged && slot.errors.firstWritten() == null) {
            slot.producer.flush();
            slot.errors.check(topic);
            acknowledged = true;
        }
        ProducerIdAndEpoch current = internals.producerIdAndEpoch(slot.producer);
        slot.transaction = transaction.preCommitted(current.producerId(), current.epoch(), slot.sent,
                slot.sent == 0 ? null : slot.errors.firstWritten());
        if (acknowledged) {
            return PreCommitted.durable(slot.transaction);
        }
        KafkaProducer<byte[], byte[]> producer = slot.producer;
        SendErrors errors = slot.errors;
        CompletableFuture<Void> durable = CompletableFuture.runAsync(() -> {
            producer.flush();
            errors.check(topic);
        }, flushThread);
        return new PreCommitted<>(slot.transaction, durable);
    }

    @Override
    public void commit(KafkaTransaction transaction) throws Exception {
        Slot slot = find(transaction);
        if (slot == null) {
            recoverAndCommit(transaction);
            return;
        }
        try {
            slot.producer.commitTransaction();
        } catch (RetriableException e) {
            throw e; // the producer may retry commitTransaction(); the runtime does
        } catch (KafkaException e) {
            // The producer is unusable now; the broker's state says whether the commit happened.
            discard(slot);
            LOG.warn("Committing {} failed ({}); checking its state on the broker", transaction.describe(), e.toString());
            requireCommitted(transaction, e);
            return;
        }
        slot.transaction = null;
    }

    @Override
    public void abort(KafkaTransaction transaction) {
        Slot slot = find(transaction);
        if (slot == null) {
            return;
        }
        try {
            slot.producer.abortTransaction();
            slot.transaction = null;
        } catch (KafkaException e) {
            // abortLingering of the next attempt, or the id's next initTransactions, aborts it.
            LOG.warn("Aborting {} failed: {}", transaction.describe(), e.toString());
            discard(slot);
        }
    }

    @Override
    public void recoverAndCommit(KafkaTransaction transaction) throws Exception {
        if (transaction.records() == 0) {
            return; // nothing was sent, so the broker never heard of this transaction
        }
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                settings.producer().transactionalProducer(transaction.transactionalId()))) {
            try {
                // Connects, learning the broker's features; the probe's topic exists (a record is in it).
                producer.partitionsFor(transaction.probe().topic());
                internals.resume(producer, transaction);
                producer.commitTransaction();
                LOG.info("Committed {} of an earlier attempt", transaction.describe());
            } catch (KafkaException e) {
                requireCommitted(transaction, e);
            } finally {
                producer.close(Duration.ZERO); // never the graceful close: it would abort the transaction
            }
        }
    }

    /**
     * Returns if {@code transaction} committed, by what a {@code read_committed} reader sees of
     * it; throws otherwise, saying whether its records are lost or its outcome is unknown.
     */
    private void requireCommitted(KafkaTransaction transaction, KafkaException commitError) {
        TransactionProbe.Outcome outcome = TransactionProbe.outcome(settings.producer().committedReader(),
                transaction.probe());
        switch (outcome) {
            case COMMITTED -> LOG.info("{} was committed before", transaction.describe());
            case OPEN -> throw new IllegalStateException("cannot commit " + transaction.describe() + " yet: "
                    + commitError + "; it is still open on the broker, so a retry can commit it", commitError);
            case ABORTED -> throw new IllegalStateException("LOST: " + transaction.describe() + " was aborted by the "
                    + "broker, most likely because the job was down longer than the transaction timeout ("
                    + Option.asText(settings.producer().transactionTimeout()) + "). Its records are gone from Kafka and will not be "
                    + "replayed. Raise transaction-timeout (up to the brokers' transaction.max.timeout.ms), or use "
                    + "mode write-ahead, which has no such limit.", commitError);
            case UNKNOWN -> throw new IllegalStateException("cannot tell whether " + transaction.describe()
                    + " was committed: its record at " + transaction.probe() + " cannot be read (" + commitError
                    + ")", commitError);
        }
    }

    @Override
    public void recoverAndAbort(KafkaTransaction transaction) {
        // Its id is fenced by abortLingering(), which runs next: that aborts it on the broker.
        LOG.debug("{} will be aborted with the lingering transactions", transaction.describe());
    }

    @Override
    public void abortLingering() throws Exception {
        TransactionalIds.abortOpen(admin(), settings.ownPrefixes(context), context::ownsFormerSubtask);
    }

    @Override
    public void close() {
        // A flush still running or queued belongs to a checkpoint this attempt will not complete
        // (it is acknowledged only after the flush). Closing its producer ends it: a close with no
        // timeout fails the batches not yet acknowledged, so their send errors fail the stage (a
        // flush on a closed producer returns at once). Every such stage ends; nothing is committed.
        flushThread.shutdown();
        for (Slot slot : slots) {
            // Duration.ZERO: a graceful close aborts the open transaction, and must not touch a
            // pre-committed one, which a later attempt may still commit.
            slot.producer.close(Duration.ZERO);
        }
        slots.clear();
        try {
            flushThread.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
            admin = null;
        }
    }

    private Admin admin() {
        if (admin == null) {
            admin = Admin.create(settings.producer().admin());
        }
        return admin;
    }

    private Slot holding(KafkaTransaction transaction) {
        Slot slot = find(transaction);
        if (slot == null) {
            throw new IllegalStateException(transaction.describe() + " is not open in this writer");
        }
        return slot;
    }

    private Slot find(KafkaTransaction transaction) {
        for (Slot slot : slots) {
            if (slot.transactionalId.equals(transaction.transactionalId()) && slot.transaction != null
                    && slot.transaction.checkpointId() == transaction.checkpointId()) {
                return slot;
            }
        }
        return null;
    }

    private void discard(Slot slot) {
        slot.producer.close(Duration.ZERO);
        slots.remove(slot);
    }
}
