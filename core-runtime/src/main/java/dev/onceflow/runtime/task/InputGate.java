package dev.onceflow.runtime.task;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The inbox of one task: a bounded queue per upstream channel plus a mailbox of actions
 * (checkpoint triggers, notifications) that must run on the task thread.
 *
 * <p>Bounded channels give backpressure: a producer blocks in {@link #put} while its channel is
 * full. A channel can be <em>blocked</em> by the consumer during barrier alignment; its elements
 * stay queued (and its producer is eventually backpressured) until it is unblocked. Mail is
 * always delivered first and never blocked, so checkpoints and cancellation are never stuck
 * behind data.
 *
 * <p>For unaligned checkpoints a barrier can also be put with priority ({@link #putPriority}): it
 * is delivered right after the mail, ahead of the records queued before it on its channel, even on
 * a blocked channel, and it carries those records with it, for the checkpoint to store as in flight.
 */
public final class InputGate {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition available = lock.newCondition();
    private final Condition space = lock.newCondition();
    private final ArrayDeque<StreamElement>[] channels;
    private final boolean[] blocked;
    private final int capacity;
    private final ArrayDeque<Runnable> mail = new ArrayDeque<>();
    private final ArrayDeque<PriorityBarrier> priority = new ArrayDeque<>();
    private int nextChannel;

    @SuppressWarnings({"unchecked", "rawtypes"})
    public InputGate(int channelCount, int capacityPerChannel) {
        this.channels = new ArrayDeque[channelCount];
        for (int i = 0; i < channelCount; i++) {
            channels[i] = new ArrayDeque<>(capacityPerChannel);
        }
        this.blocked = new boolean[channelCount];
        this.capacity = capacityPerChannel;
    }

    public int channelCount() {
        return channels.length;
    }

    /** Appends an element to a channel, waiting while the channel is full (backpressure). */
    public void put(int channel, StreamElement element) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            // Barriers and end markers are never held back by a full channel: they are small and a
            // blocked checkpoint would only add latency, never save memory.
            while (element instanceof StreamElement.Records && channels[channel].size() >= capacity) {
                space.await();
            }
            channels[channel].addLast(element);
            available.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Appends an element without waiting for room: the records a sender still holds when it sends
     * a priority barrier, which must be queued before it. A channel goes over its capacity by at
     * most one batch per barrier.
     */
    public void putUnbounded(int channel, StreamElement element) {
        lock.lock();
        try {
            channels[channel].addLast(element);
            available.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Puts an unaligned barrier ahead of everything queued on {@code channel}. The record batches
     * it overtakes stay queued, to be processed as usual, and are handed over with the barrier: they
     * were sent before it, so they are the channel's records in flight for its checkpoint.
     */
    public void putPriority(int channel, CheckpointBarrier barrier) {
        lock.lock();
        try {
            List<StreamElement.Records> overtaken = new ArrayList<>();
            for (StreamElement element : channels[channel]) {
                if (element instanceof StreamElement.Records records) {
                    overtaken.add(records);
                }
            }
            priority.addLast(new PriorityBarrier(channel, barrier, List.copyOf(overtaken)));
            available.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Queues an action to run on the task thread, ahead of any data. */
    public void sendMail(Runnable action) {
        lock.lock();
        try {
            mail.addLast(action);
            available.signal();
        } finally {
            lock.unlock();
        }
    }

    /** The number of records queued on {@code channel}. */
    public int queuedRecords(int channel) {
        lock.lock();
        try {
            int records = 0;
            for (StreamElement element : channels[channel]) {
                if (element instanceof StreamElement.Records batch) {
                    records += batch.records().size();
                }
            }
            return records;
        } finally {
            lock.unlock();
        }
    }

    public void block(int channel) {
        lock.lock();
        try {
            blocked[channel] = true;
        } finally {
            lock.unlock();
        }
    }

    public void unblockAll() {
        lock.lock();
        try {
            java.util.Arrays.fill(blocked, false);
            available.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits up to {@code timeoutNanos} for mail, a priority barrier or an element of an unblocked
     * channel and returns it (mail first, then priority barriers, then channels round robin), or
     * {@code null} on timeout.
     */
    public Object take(long timeoutNanos) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            long remaining = timeoutNanos;
            while (true) {
                Runnable action = mail.pollFirst();
                if (action != null) {
                    return action;
                }
                PriorityBarrier barrier = priority.pollFirst();
                if (barrier != null) {
                    return barrier;
                }
                for (int i = 0; i < channels.length; i++) {
                    int channel = (nextChannel + i) % channels.length;
                    if (!blocked[channel]) {
                        StreamElement element = channels[channel].pollFirst();
                        if (element != null) {
                            nextChannel = channel + 1;
                            space.signalAll();
                            return new Polled(channel, element);
                        }
                    }
                }
                if (remaining <= 0) {
                    return null;
                }
                remaining = available.awaitNanos(remaining);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Waits for mail only, up to {@code timeout}; returns it or {@code null}. For source tasks. */
    public Runnable takeMail(long timeout, TimeUnit unit) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            long remaining = unit.toNanos(timeout);
            while (mail.isEmpty() && remaining > 0) {
                remaining = available.awaitNanos(remaining);
            }
            return mail.pollFirst();
        } finally {
            lock.unlock();
        }
    }

    /** An element taken from a channel. */
    public record Polled(int channel, StreamElement element) {
    }

    /**
     * An unaligned barrier that arrived on {@code channel}, with the record batches that were queued
     * before it on that channel when it arrived (they are still delivered as usual, after it).
     */
    public record PriorityBarrier(int channel, CheckpointBarrier barrier, List<StreamElement.Records> overtaken) {
    }
}
