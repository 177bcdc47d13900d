package dev.onceflow.connector.kafka.sink;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A producer interceptor that counts acknowledgements and, while {@link #hold()} is in force,
 * keeps the producer's network thread from completing any more of them: a broker that is slow to
 * acknowledge, for as long as a test needs, so a flush waits.
 */
public final class HoldAcknowledgements implements ProducerInterceptor<byte[], byte[]> {

    private static final AtomicInteger ACKNOWLEDGED = new AtomicInteger();
    private static volatile CountDownLatch hold = new CountDownLatch(0);

    /** Acknowledgements completed since the last {@link #reset()}, by every producer with this interceptor. */
    static int acknowledged() {
        return ACKNOWLEDGED.get();
    }

    static void reset() {
        ACKNOWLEDGED.set(0);
        hold = new CountDownLatch(0);
    }

    /** From now on, acknowledgements wait until {@link #release()} (for at most a minute each). */
    static void hold() {
        hold = new CountDownLatch(1);
    }

    static void release() {
        hold.countDown();
    }

    @Override
    public ProducerRecord<byte[], byte[]> onSend(ProducerRecord<byte[], byte[]> record) {
        return record;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        try {
            hold.await(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ACKNOWLEDGED.incrementAndGet();
    }

    @Override
    public void close() {
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }
}
