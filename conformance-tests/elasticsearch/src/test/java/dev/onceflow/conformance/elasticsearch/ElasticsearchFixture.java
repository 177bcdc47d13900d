package dev.onceflow.conformance.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import dev.onceflow.conformance.SinkExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.spi.record.Event;
import dev.onceflow.testing.elasticsearch.ElasticsearchNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;

/**
 * The Elasticsearch sink in one mode, against the node shared by the test JVM. Each case writes to
 * an index named after it, with a committer index of its own. A committed reader sees every
 * document of the index after a refresh.
 */
final class ElasticsearchFixture implements SinkExternalSystem {

    private final String mode;
    private final String documentId;
    private ElasticsearchNode node;
    private ElasticsearchClient client;

    /** The sink with record ids as document ids, in {@code mode}. */
    ElasticsearchFixture(String mode) {
        this(mode, "id");
    }

    ElasticsearchFixture(String mode, String documentId) {
        this.mode = mode;
        this.documentId = documentId;
    }

    @Override
    public void start() throws Exception {
        node = ElasticsearchNode.shared();
        client = new ElasticsearchClient(new RestClientTransport(
                RestClient.builder(new HttpHost(node.host(), node.port(), "http")).build(), new JacksonJsonpMapper()));
    }

    @Override
    public String variant() {
        return documentId.equals("id") ? mode : mode + "-" + documentId + "-ids";
    }

    @Override
    public String sinkIdentifier() {
        return "elasticsearch";
    }

    /**
     * Creates the case's index (and committer index) up front, as a deployment would: creating an
     * index is a cluster-state change that takes about a second on this machine, which would
     * otherwise delay the job's first documents into the time the case means to crash it in.
     */
    @Override
    public Map<String, Object> sinkOptions(TestDestination destination) throws Exception {
        String index = index(destination);
        if (!client.indices().exists(e -> e.index(index)).value()) {
            client.indices().create(c -> c.index(index).settings(s -> s.numberOfReplicas("0")));
            // The mapping the sink gives a committer index it creates itself.
            client.indices().create(c -> c.index(index + "-checkpoints").settings(s -> s.numberOfReplicas("0"))
                    .mappings(m -> m.properties("job", p -> p.keyword(k -> k)).properties("sink", p -> p.keyword(k -> k))
                            .properties("subtask", p -> p.integer(i -> i)).properties("checkpoint", p -> p.long_(l -> l))
                            .properties("committedAt", p -> p.date(d -> d))));
        }
        Map<String, Object> options = new LinkedHashMap<>();
        options.put("hosts", node.httpUri().toString());
        options.put("index", index(destination));
        options.put("mode", mode);
        options.put("document-id", documentId);
        options.put("committer-index", index(destination) + "-checkpoints");
        // Long enough to ride out the node restart case (start-up is 13-21 s here).
        options.put("retry.max-duration", "90s");
        return options;
    }

    /**
     * The case's index. The node is shared by every suite in the JVM and each suite numbers its
     * cases from 1, so the variant is part of the name: suites of two modes must not read each
     * other's documents (which the EO-6 case, writing ids past the first run's, would count).
     */
    private String index(TestDestination destination) {
        return (variant() + "-" + destination.name()).toLowerCase(java.util.Locale.ROOT);
    }

    /** Every document of the case's index, after a refresh: what a searcher sees once the job is done. */
    @Override
    public List<Event> readCommitted(TestDestination destination) throws Exception {
        String index = index(destination);
        if (!client.indices().exists(e -> e.index(index)).value()) {
            return List.of();
        }
        client.indices().refresh(r -> r.index(index));
        List<Event> events = new ArrayList<>();
        SearchResponse<Document> page = client.search(s -> s.index(index).size(5000).scroll(t -> t.time("1m"))
                .sort(o -> o.doc(d -> d)), Document.class);
        String scrollId = page.scrollId();
        List<Hit<Document>> hits = page.hits().hits();
        try {
            while (!hits.isEmpty()) {
                for (Hit<Document> hit : hits) {
                    Document d = hit.source();
                    events.add(new Event(d.id(), d.key(), d.payload(), d.count()));
                }
                String current = scrollId;
                var next = client.scroll(s -> s.scrollId(current).scroll(t -> t.time("1m")), Document.class);
                scrollId = next.scrollId();
                hits = next.hits().hits();
            }
        } finally {
            String last = scrollId;
            client.clearScroll(c -> c.scrollId(last));
        }
        return events;
    }

    /** The document body the sink writes. */
    record Document(String id, String key, String payload, long count) {
    }

    /**
     * Elasticsearch keeps nothing open between requests: nothing can be left behind but documents,
     * which {@link #readCommitted} judges.
     */
    @Override
    public List<String> leftovers(TestDestination destination) {
        return List.of();
    }

    /** Stops the node gracefully and starts it again on the same data and port. */
    void restartNode() throws Exception {
        node.restart();
    }

    @Override
    public void close() throws Exception {
        if (client != null) {
            client._transport().close();
        }
        // The node is shared by the test JVM and stopped when it exits.
    }
}
