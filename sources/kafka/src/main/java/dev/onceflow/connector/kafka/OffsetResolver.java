package dev.onceflow.connector.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * Turns the symbolic starting points ("earliest", "latest", a timestamp, the group's committed
 * offsets) and the bounded end into concrete offsets, with the enumerator's admin client. Every
 * offset it returns is {@code >= 0}, so splits never carry a symbolic position into a checkpoint.
 *
 * <p>Blocking: each method waits for the broker, at most {@code timeoutMillis}. Used on the
 * coordinator thread only.
 */
final class OffsetResolver {

    private final Admin admin;
    private final IsolationLevel isolationLevel;
    private final long timeoutMillis;

    OffsetResolver(Admin admin, IsolationLevel isolationLevel, long timeoutMillis) {
        this.admin = admin;
        this.isolationLevel = isolationLevel;
        this.timeoutMillis = timeoutMillis;
    }

    /** Log start offsets. */
    Map<TopicPartition, Long> earliest(Collection<TopicPartition> partitions) {
        return list(partitions, OffsetSpec.earliest());
    }

    /**
     * End offsets: the high watermark under {@code read_uncommitted}, the last stable offset under
     * {@code read_committed} (the broker answers {@code ListOffsets} with the isolation level's end).
     */
    Map<TopicPartition, Long> latest(Collection<TopicPartition> partitions) {
        return list(partitions, OffsetSpec.latest());
    }

    /** The first offset whose timestamp is {@code >= epochMillis}; the end offset where there is none. */
    Map<TopicPartition, Long> forTimestamp(Collection<TopicPartition> partitions, long epochMillis) {
        Map<TopicPartition, Long> offsets = list(partitions, OffsetSpec.forTimestamp(epochMillis));
        Map<TopicPartition, Long> result = new HashMap<>();
        Map<TopicPartition, Long> ends = null;
        for (TopicPartition partition : partitions) {
            Long offset = offsets.get(partition);
            if (offset == null || offset < 0) {
                // No record at or after the timestamp yet: everything written from now on is.
                if (ends == null) {
                    ends = latest(partitions);
                }
                offset = ends.get(partition);
            }
            result.put(partition, offset);
        }
        return result;
    }

    /**
     * The group's committed offsets; partitions without one get {@code fallback}.
     *
     * @throws IllegalStateException naming the partitions, with {@link CommittedOffsetsFallback#FAIL}
     */
    Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions, String groupId,
            CommittedOffsetsFallback fallback) {
        Map<TopicPartition, OffsetAndMetadata> committed =
                await(admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata(),
                        "the committed offsets of group " + groupId);
        Map<TopicPartition, Long> result = new HashMap<>();
        List<TopicPartition> missing = new ArrayList<>();
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata offset = committed.get(partition);
            if (offset != null && offset.offset() >= 0) {
                result.put(partition, offset.offset());
            } else {
                missing.add(partition);
            }
        }
        if (!missing.isEmpty()) {
            switch (fallback) {
                case EARLIEST -> result.putAll(earliest(missing));
                case LATEST -> result.putAll(latest(missing));
                case FAIL -> throw new IllegalStateException("consumer group " + groupId + " has no committed offset for "
                        + missing + " and committed-offsets-fallback is FAIL");
            }
        }
        return result;
    }

    private Map<TopicPartition, Long> list(Collection<TopicPartition> partitions, OffsetSpec spec) {
        if (partitions.isEmpty()) {
            return Map.of();
        }
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(p -> request.put(p, spec));
        Map<TopicPartition, ListOffsetsResultInfo> infos =
                await(admin.listOffsets(request, new ListOffsetsOptions(isolationLevel)).all(),
                        "the offsets of " + partitions);
        Map<TopicPartition, Long> result = new HashMap<>();
        infos.forEach((partition, info) -> result.put(partition, info.offset()));
        return result;
    }

    /** Waits for an admin call, turning its failure into one message naming what was asked. */
    <T> T await(KafkaFuture<T> future, String what) {
        try {
            return future.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking Kafka for " + what, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalStateException("cannot get " + what + " from Kafka: " + cause.getClass().getSimpleName()
                    + ": " + cause.getMessage(), cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException("Kafka did not answer within " + timeoutMillis + " ms when asked for "
                    + what, e);
        }
    }
}
