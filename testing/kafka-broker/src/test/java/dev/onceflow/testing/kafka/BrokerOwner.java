package dev.onceflow.testing.kafka;

import java.util.concurrent.CountDownLatch;

/**
 * A test JVM in miniature, for {@link KafkaBrokerProcessTest}: starts a broker, prints its pid and
 * directory, and waits to be killed.
 */
final class BrokerOwner {

    static final String PREFIX = "broker ";

    private BrokerOwner() {
    }

    public static void main(String[] args) throws InterruptedException {
        KafkaBrokerProcess broker = KafkaBrokerProcess.start();
        System.out.println(PREFIX + broker.pid() + " " + broker.logFile().getParent());
        System.out.flush();
        new CountDownLatch(1).await(); // until killed
    }
}
