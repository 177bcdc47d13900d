package dev.onceflow.runtime.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.checkpoint.CheckpointKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The inbox of a task: mail is never stuck behind data, blocked channels hold, full channels push back. */
class InputGateTest {

    private static final long NO_WAIT = 0;
    private static final long LONG_WAIT = TimeUnit.SECONDS.toNanos(30);

    private Thread helper;

    @AfterEach
    void stopHelper() throws InterruptedException {
        if (helper != null) {
            helper.interrupt();
            helper.join(5_000);
        }
    }

    private static StreamElement.Records batch(Object... records) {
        return new StreamElement.Records(List.of(records));
    }

    private static StreamElement.Barrier barrier(long id) {
        return new StreamElement.Barrier(new CheckpointBarrier(id, 0, CheckpointKind.CHECKPOINT, false));
    }

    private static InputGate.Polled polled(Object item) {
        assertThat(item).isInstanceOf(InputGate.Polled.class);
        return (InputGate.Polled) item;
    }

    /** Runs {@code action} on a helper thread and returns its outcome. */
    private <T> CompletableFuture<T> onHelperThread(java.util.concurrent.Callable<T> action) {
        CompletableFuture<T> result = new CompletableFuture<>();
        helper = new Thread(() -> {
            try {
                result.complete(action.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }, "input-gate-test-helper");
        helper.start();
        return result;
    }

    private void awaitHelperParked() {
        await().atMost(Duration.ofSeconds(10)).until(() -> helper.getState() == Thread.State.WAITING
                || helper.getState() == Thread.State.TIMED_WAITING);
    }

    @Test
    void mailIsDeliveredBeforeQueuedData() throws Exception {
        InputGate gate = new InputGate(2, 4);
        gate.put(0, batch("a"));
        gate.put(1, batch("b"));
        Runnable mail = () -> { };
        gate.sendMail(mail);

        assertThat(gate.take(NO_WAIT)).isSameAs(mail);
        assertThat(polled(gate.take(NO_WAIT)).element()).isIn(batch("a"), batch("b"));
    }

    @Test
    void elementsOfOneChannelArriveInOrderAndChannelsTakeTurns() throws Exception {
        InputGate gate = new InputGate(2, 4);
        gate.put(0, batch("a1"));
        gate.put(0, batch("a2"));
        gate.put(1, batch("b1"));
        gate.put(1, batch("b2"));

        List<InputGate.Polled> taken = List.of(polled(gate.take(NO_WAIT)), polled(gate.take(NO_WAIT)),
                polled(gate.take(NO_WAIT)), polled(gate.take(NO_WAIT)));

        assertThat(taken).extracting(InputGate.Polled::channel).containsExactly(0, 1, 0, 1);
        assertThat(taken).extracting(InputGate.Polled::element)
                .containsExactly(batch("a1"), batch("b1"), batch("a2"), batch("b2"));
        assertThat(gate.take(NO_WAIT)).isNull();
    }

    @Test
    void aBlockedChannelIsNotDeliveredUntilUnblocked() throws Exception {
        InputGate gate = new InputGate(2, 4);
        gate.put(0, batch("held"));
        gate.put(1, batch("free"));
        gate.block(0);

        InputGate.Polled first = polled(gate.take(NO_WAIT));
        assertThat(first.channel()).isEqualTo(1);
        assertThat(gate.take(NO_WAIT)).as("only the blocked channel has data").isNull();

        gate.unblockAll();

        InputGate.Polled released = polled(gate.take(NO_WAIT));
        assertThat(released.channel()).isZero();
        assertThat(released.element()).isEqualTo(batch("held"));
    }

    @Test
    void mailIsDeliveredEvenWhileEveryChannelWithDataIsBlocked() throws Exception {
        InputGate gate = new InputGate(1, 4);
        gate.put(0, batch("held"));
        gate.block(0);
        Runnable mail = () -> { };
        gate.sendMail(mail);

        assertThat(gate.take(NO_WAIT)).isSameAs(mail);
        assertThat(gate.take(NO_WAIT)).isNull();
    }

    @Test
    void aWaitingConsumerWakesWhenItsBlockedChannelIsUnblocked() throws Exception {
        InputGate gate = new InputGate(2, 4);
        gate.put(0, batch("held"));
        gate.block(0);
        CompletableFuture<Object> taken = onHelperThread(() -> gate.take(LONG_WAIT));
        awaitHelperParked();
        assertThat(taken).isNotDone();

        gate.unblockAll();

        Object item = taken.get(10, TimeUnit.SECONDS);
        assertThat(polled(item).element()).isEqualTo(batch("held"));
    }

    @Test
    void aWaitingConsumerWakesForNewDataAndForMail() throws Exception {
        InputGate gate = new InputGate(1, 4);
        CompletableFuture<Object> forData = onHelperThread(() -> gate.take(LONG_WAIT));
        awaitHelperParked();
        gate.put(0, batch("x"));
        assertThat(polled(forData.get(10, TimeUnit.SECONDS)).element()).isEqualTo(batch("x"));

        Runnable mail = () -> { };
        CompletableFuture<Object> forMail = onHelperThread(() -> gate.take(LONG_WAIT));
        awaitHelperParked();
        gate.sendMail(mail);
        assertThat(forMail.get(10, TimeUnit.SECONDS)).isSameAs(mail);
    }

    @Test
    void takeReturnsNullWhenNothingArrivesInTime() throws Exception {
        InputGate gate = new InputGate(1, 4);

        assertThat(gate.take(TimeUnit.MILLISECONDS.toNanos(20))).isNull();
        assertThat(gate.takeMail(20, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void takeMailIgnoresData() throws Exception {
        InputGate gate = new InputGate(1, 4);
        gate.put(0, batch("data"));
        Runnable mail = () -> { };
        gate.sendMail(mail);

        assertThat(gate.takeMail(0, TimeUnit.NANOSECONDS)).isSameAs(mail);
        assertThat(gate.takeMail(0, TimeUnit.NANOSECONDS)).isNull();
        assertThat(polled(gate.take(NO_WAIT)).element()).isEqualTo(batch("data"));
    }

    @Test
    void putBlocksWhileItsChannelIsFullAndResumesWhenTheConsumerTakes() throws Exception {
        InputGate gate = new InputGate(2, 2);
        gate.put(0, batch(1));
        gate.put(0, batch(2));
        CompletableFuture<Boolean> third = onHelperThread(() -> {
            gate.put(0, batch(3));
            return true;
        });
        awaitHelperParked();
        assertThat(third).as("the producer is backpressured").isNotDone();

        // Another channel is not affected by the full one.
        gate.put(1, batch("other"));

        assertThat(polled(gate.take(NO_WAIT)).element()).isEqualTo(batch(1));
        assertThat(third.get(10, TimeUnit.SECONDS)).isTrue();
        List<Object> rest = new ArrayList<>();
        for (Object item = gate.take(NO_WAIT); item != null; item = gate.take(NO_WAIT)) {
            rest.add(polled(item).element());
        }
        assertThat(rest).containsExactly(batch("other"), batch(2), batch(3));
    }

    @Test
    void barriersAreNotHeldBackByAFullChannel() throws Exception {
        InputGate gate = new InputGate(1, 1);
        gate.put(0, batch("fills the channel"));

        gate.put(0, barrier(1)); // must return at once
        gate.put(0, StreamElement.EndOfData.INSTANCE);

        assertThat(polled(gate.take(NO_WAIT)).element()).isEqualTo(batch("fills the channel"));
        assertThat(polled(gate.take(NO_WAIT)).element()).isEqualTo(barrier(1));
        assertThat(polled(gate.take(NO_WAIT)).element()).isEqualTo(StreamElement.EndOfData.INSTANCE);
    }

    @Test
    void aProducerBlockedOnAFullBlockedChannelResumesOnlyAfterUnblock() throws Exception {
        InputGate gate = new InputGate(2, 1);
        gate.put(0, batch("a1"));
        gate.block(0);
        CompletableFuture<Boolean> second = onHelperThread(() -> {
            gate.put(0, batch("a2"));
            return true;
        });
        awaitHelperParked();
        gate.put(1, batch("b1"));
        assertThat(polled(gate.take(NO_WAIT)).channel()).isEqualTo(1);
        assertThat(second).as("taking from another channel frees no space in the blocked one").isNotDone();

        gate.unblockAll();
        assertThat(polled(gate.take(NO_WAIT)).element()).isEqualTo(batch("a1"));

        assertThat(second.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(polled(gate.take(NO_WAIT)).element()).isEqualTo(batch("a2"));
    }

    @Test
    void aPriorityBarrierOvertakesItsChannelsRecordsEvenBlockedAndCarriesThem() throws Exception {
        InputGate gate = new InputGate(2, 3);
        gate.put(0, batch("a1"));
        gate.put(0, new StreamElement.Watermark(5));
        gate.put(0, batch("a2"));
        gate.put(1, batch("b1"));
        gate.block(0);
        CheckpointBarrier barrier = new CheckpointBarrier(7, 0, CheckpointKind.CHECKPOINT, false);

        gate.putPriority(0, barrier);
        // Over capacity: the sender's partial batch goes ahead of its priority barrier without waiting.
        gate.putUnbounded(0, batch("a3"));

        Object first = gate.take(NO_WAIT);
        assertThat(first).isInstanceOf(InputGate.PriorityBarrier.class);
        InputGate.PriorityBarrier priority = (InputGate.PriorityBarrier) first;
        assertThat(priority.channel()).isZero();
        assertThat(priority.barrier()).isEqualTo(barrier);
        assertThat(priority.overtaken()).as("records queued before it, watermarks left out")
                .containsExactly(batch("a1"), batch("a2"));
        assertThat(polled(gate.take(NO_WAIT)).element()).as("the blocked channel still holds").isEqualTo(batch("b1"));
        assertThat(gate.take(NO_WAIT)).isNull();

        gate.unblockAll();

        List<Object> rest = new ArrayList<>();
        for (Object item = gate.take(NO_WAIT); item != null; item = gate.take(NO_WAIT)) {
            rest.add(polled(item).element());
        }
        assertThat(rest).as("the overtaken records are still delivered, in order")
                .containsExactly(batch("a1"), new StreamElement.Watermark(5), batch("a2"), batch("a3"));
    }

    @Test
    void aPriorityBarrierWakesAWaitingConsumer() throws Exception {
        InputGate gate = new InputGate(1, 4);
        CompletableFuture<Object> taken = onHelperThread(() -> gate.take(LONG_WAIT));
        awaitHelperParked();

        gate.putPriority(0, new CheckpointBarrier(1, 0, CheckpointKind.CHECKPOINT, false));

        assertThat(taken.get(10, TimeUnit.SECONDS)).isInstanceOf(InputGate.PriorityBarrier.class);
    }
}
