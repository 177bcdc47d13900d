package dev.onceflow.connector.kafka.sink;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The one place that touches kafka-clients internals: reading a transactional producer's producer
 * id and epoch, and making a new producer continue a transaction that another (possibly dead)
 * producer pre-committed, so that it can be committed.
 *
 * <p>Why internals: kafka-clients has no public API to commit a transaction begun by another
 * producer. KIP-939 would add one, but it is not usable in any released 4.x client or broker
 * (the methods were removed before release). Without it the only public way to finish a
 * transaction is {@code initTransactions()}, which <em>aborts</em> it.
 *
 * <p>What resuming does, and what it relies on (checked against each supported version by
 * {@code ProducerInternalsTest}): a fresh producer with the same {@code transactional.id} learns the
 * broker's features through a metadata request; its {@code TransactionManager} is then told
 * whether transaction protocol 2 is on, moved {@code UNINITIALIZED → INITIALIZING → READY →
 * IN_TRANSACTION}, given the handle's producer id and epoch, and marked as having started a
 * transaction, so that {@code commitTransaction()} sends {@code EndTxn(commit)} for that producer
 * id and epoch. The broker accepts it as long as the transaction is still open, i.e. within
 * {@code transaction.timeout.ms} of its first record and before anyone called
 * {@code initTransactions()} for that id.
 *
 * <p>A client version outside {@link #SUPPORTED_VERSIONS} is refused before anything is written,
 * with a message naming the version, rather than failing at the first recovery.
 */
final class ProducerInternals {

    /** kafka-clients release lines whose internals this class was checked against. */
    static final List<String> SUPPORTED_VERSIONS = List.of("4.1.", "4.2.", "4.3.", "4.4.");

    private static final String TRANSACTION_MANAGER = "org.apache.kafka.clients.producer.internals.TransactionManager";

    private final Field transactionManagerField;
    private final Field producerIdAndEpochField;
    private final Field transactionStartedField;
    private final Field producerIdField;
    private final Field epochField;
    private final Constructor<?> producerIdAndEpochConstructor;
    private final Method transitionTo;
    private final Method updateTransactionV2;
    private final Method isTransactionV2Enabled;
    private final Class<? extends Enum> stateType;

    private ProducerInternals() throws ReflectiveOperationException {
        transactionManagerField = accessible(KafkaProducer.class.getDeclaredField("transactionManager"));
        Class<?> transactionManager = Class.forName(TRANSACTION_MANAGER, false, KafkaProducer.class.getClassLoader());
        producerIdAndEpochField = accessible(transactionManager.getDeclaredField("producerIdAndEpoch"));
        transactionStartedField = accessible(transactionManager.getDeclaredField("transactionStarted"));
        Class<?> producerIdAndEpoch = producerIdAndEpochField.getType();
        producerIdField = accessible(producerIdAndEpoch.getField("producerId"));
        epochField = accessible(producerIdAndEpoch.getField("epoch"));
        producerIdAndEpochConstructor = producerIdAndEpoch.getConstructor(long.class, short.class);
        @SuppressWarnings("unchecked")
        Class<? extends Enum> state = (Class<? extends Enum>) Class.forName(TRANSACTION_MANAGER + "$State", false,
                KafkaProducer.class.getClassLoader());
        stateType = state;
        transitionTo = accessible(transactionManager.getDeclaredMethod("transitionTo", state));
        updateTransactionV2 = accessible(transactionManager.getDeclaredMethod("maybeUpdateTransactionV2Enabled",
                boolean.class));
        isTransactionV2Enabled = accessible(transactionManager.getDeclaredMethod("isTransactionV2Enabled"));
    }

    /**
     * Checks the client version and finds every internal this class uses.
     *
     * @throws IllegalStateException naming the kafka-clients version when it is not supported or its
     *     internals are not where this class expects them
     */
    static ProducerInternals load() {
        String version = clientVersion();
        if (SUPPORTED_VERSIONS.stream().noneMatch(version::startsWith)) {
            throw new IllegalStateException("the Kafka sink's exactly-once mode supports kafka-clients "
                    + String.join("x, ", SUPPORTED_VERSIONS) + "x, but kafka-clients " + version
                    + " is on the classpath; use a supported kafka-clients or mode write-ahead");
        }
        try {
            return new ProducerInternals();
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("kafka-clients " + version + " does not have the producer internals the "
                    + "exactly-once mode needs (" + e + "); use mode write-ahead", e);
        }
    }

    /** The kafka-clients version on the classpath, from the properties file the jar carries; "unknown" without it. */
    static String clientVersion() {
        try (InputStream in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown").trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The producer id and epoch a transactional producer currently uses. */
    ProducerIdAndEpoch producerIdAndEpoch(KafkaProducer<?, ?> producer) {
        try {
            Object value = producerIdAndEpochField.get(transactionManagerField.get(producer));
            return new ProducerIdAndEpoch(producerIdField.getLong(value), epochField.getShort(value));
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read the producer's id and epoch: " + e, e);
        }
    }

    /** Whether the producer runs transaction protocol 2 (an epoch bump at the end of every transaction). */
    boolean usesTransactionV2(KafkaProducer<?, ?> producer) {
        try {
            return (boolean) isTransactionV2Enabled.invoke(transactionManagerField.get(producer));
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read the producer's transaction protocol: " + e, e);
        }
    }

    /**
     * Makes {@code producer}, new and never initialized for transactions, continue the open
     * transaction of {@code transaction}, so that its {@code commitTransaction()} commits it.
     * The producer must already have fetched metadata from the cluster (it learns the broker's
     * features then).
     */
    @SuppressWarnings("unchecked")
    void resume(KafkaProducer<?, ?> producer, KafkaTransaction transaction) {
        try {
            Object manager = transactionManagerField.get(producer);
            synchronized (manager) {
                updateTransactionV2.invoke(manager, true);
                transitionTo.invoke(manager, Enum.valueOf(stateType, "INITIALIZING"));
                producerIdAndEpochField.set(manager,
                        producerIdAndEpochConstructor.newInstance(transaction.producerId(), transaction.epoch()));
                transitionTo.invoke(manager, Enum.valueOf(stateType, "READY"));
                transitionTo.invoke(manager, Enum.valueOf(stateType, "IN_TRANSACTION"));
                transactionStartedField.setBoolean(manager, true);
            }
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("cannot resume " + transaction.describe() + ": " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot resume " + transaction.describe() + ": " + e, e);
        }
    }

    private static <T extends java.lang.reflect.AccessibleObject> T accessible(T member) {
        member.setAccessible(true);
        return member;
    }

    /** A producer id and epoch as the broker knows them. */
    record ProducerIdAndEpoch(long producerId, short epoch) {
    }
}
