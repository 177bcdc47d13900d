package dev.onceflow.testing.elasticsearch;

/**
 * Run in a child JVM by {@link SharedNodeTest}: uses the shared node, prints what the test checks,
 * and returns, so that the JVM exits as a test JVM does, through its shutdown hooks.
 */
public final class SharedNodeProbe {

    private SharedNodeProbe() {
    }

    public static void main(String[] args) {
        ElasticsearchNode node = ElasticsearchNode.shared();
        System.out.println("same=" + (ElasticsearchNode.shared() == node));
        try {
            node.close();
            System.out.println("close=allowed");
        } catch (IllegalStateException e) {
            System.out.println("close=refused");
        }
        System.out.println("running=" + node.isRunning());
        System.out.println("port=" + node.port());
        System.out.println("directory=" + node.logFile().getParent());
        node.processes().forEach(process -> System.out.println("pid=" + process.pid()));
    }
}
