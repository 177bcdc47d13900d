package dev.onceflow.spi.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class PreCommittedTest {

    @Test
    void awaitDurableReturnsTheHandleOnceTheStageCompletes() throws Exception {
        CompletableFuture<Void> durable = new CompletableFuture<>();
        PreCommitted<String> preCommitted = new PreCommitted<>("txn-7", durable);
        CompletableFuture<String> awaited = CompletableFuture.supplyAsync(() -> {
            try {
                return preCommitted.awaitDurable();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(awaited).isNotDone();

        durable.complete(null);

        assertThat(awaited.get()).isEqualTo("txn-7");
    }

    @Test
    void awaitDurableThrowsWhatFailedTheStageUnwrapped() {
        IOException disk = new IOException("hsync failed");
        PreCommitted<String> preCommitted = new PreCommitted<>("txn-8", CompletableFuture.failedFuture(disk));

        assertThatThrownBy(preCommitted::awaitDurable).isSameAs(disk);
    }

    @Test
    void awaitDurableRethrowsAnErrorAsItIs() {
        OutOfMemoryError error = new OutOfMemoryError("test");
        PreCommitted<String> preCommitted = new PreCommitted<>("txn-9", CompletableFuture.failedFuture(error));

        assertThatThrownBy(preCommitted::awaitDurable).isSameAs(error);
    }
}
