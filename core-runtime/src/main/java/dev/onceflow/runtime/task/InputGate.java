package dev.onceflow.runtime.task;

import java.util.ArrayDeque;
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
 */
public final class InputGate {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition available = lock.newCondition();
    private final Condition space = lock.newCondition();
    private final ArrayDeque<StreamElement>[] channels;
    private final boolean[] blocked;
    private final int capacity;
    private final ArrayDeque<Runnable> mail = new ArrayDeque<>();
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
     * Waits up to {@code timeoutNanos} for mail or an element of an unblocked channel and returns
     * it (mail first, channels round robin), or {@code null} on timeout.
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
}
