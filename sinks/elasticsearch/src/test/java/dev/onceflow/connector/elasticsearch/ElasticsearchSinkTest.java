package dev.onceflow.connector.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.IdempotentWriter;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.WriteAheadWriter;
import dev.onceflow.testing.elasticsearch.ElasticsearchNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Both modes against a real Elasticsearch node: what a replay does, rejections, the committer. */
class ElasticsearchSinkTest {

    private static final AtomicInteger INDEXES = new AtomicInteger();
    private static ElasticsearchNode node;
    private static ElasticsearchClient client;

    @BeforeAll
    static void connect() throws Exception {
        node = ElasticsearchNode.shared();
        client = new ElasticsearchClient(new RestClientTransport(
                RestClient.builder(new HttpHost(node.host(), node.port(), "http")).build(), new JacksonJsonpMapper()));
    }

    @AfterAll
    static void disconnect() throws Exception {
        client._transport().close();
    }

    private static String newIndex() {
        return "sink-test-" + INDEXES.incrementAndGet() + "-" + System.nanoTime();
    }

    private static <S> S sink(Class<S> type, String index, Map<String, String> extra) {
        ElasticsearchSinkFactory factory = new ElasticsearchSinkFactory();
        Map<String, String> raw = new LinkedHashMap<>();
        raw.put("hosts", node.httpUri().toString());
        raw.put("index", index);
        raw.putAll(extra);
        return type.cast(factory.createSink(OptionValues.validate("test", raw, factory.options())));
    }

    private static SinkContext context(OptionalLong restored) {
        return new SinkContext("job", "es-sink", 0, 1, 1, restored, "attempt");
    }

    /** id -> "key/payload/count" of every document in {@code index}. */
    private static Map<String, String> documents(String index) throws Exception {
        client.indices().refresh(r -> r.index(index));
        Map<String, String> found = new TreeMap<>();
        for (Hit<EventDocument> hit : client.search(s -> s.index(index).size(1000), EventDocument.class).hits().hits()) {
            EventDocument d = hit.source();
            found.put(hit.id(), d.key() + "/" + d.payload() + "/" + d.count());
        }
        return found;
    }

    /** The document of an event. */
    record EventDocument(String id, String key, String payload, long count) {
    }

    private static List<Event> events(int from, int to) {
        return java.util.stream.IntStream.range(from, to)
                .mapToObj(i -> new Event(Integer.toString(i), "k" + (i % 3), "p" + i, i)).toList();
    }

    @Test
    void aReplayRewritesTheSameDocuments() throws Exception {
        String index = newIndex();
        IdempotentSink<Event> sink = sink(IdempotentSink.class, index, Map.of("bulk.max-actions", "7"));
        try (IdempotentWriter<Event> writer = sink.createWriter(context(OptionalLong.empty()))) {
            for (Event e : events(0, 50)) {
                writer.write(e);
            }
            writer.flush();
            for (Event e : events(20, 50)) { // the replay after a crash
                writer.write(e);
            }
            writer.flush();
        }
        Map<String, String> docs = documents(index);
        assertThat(docs).hasSize(50).containsEntry("0", "k0/p0/0").containsEntry("49", "k1/p49/49");
    }

    @Test
    void createCountsAReplaysConflictAsWritten() throws Exception {
        String index = newIndex();
        IdempotentSink<Event> sink = sink(IdempotentSink.class, index, Map.of("op-type", "create"));
        try (IdempotentWriter<Event> writer = sink.createWriter(context(OptionalLong.empty()))) {
            writer.write(new Event("1", "k", "first", 1));
            writer.flush();
            writer.write(new Event("1", "k", "replayed", 1));
            writer.write(new Event("2", "k", "second", 2));
            writer.flush();
        }
        assertThat(documents(index)).containsExactlyEntriesOf(new TreeMap<>(Map.of("1", "k/first/1", "2", "k/second/2")));
    }

    @Test
    void keyDocumentsNeverMoveBackToAnOlderCount() throws Exception {
        String index = newIndex();
        IdempotentSink<Event> sink = sink(IdempotentSink.class, index, Map.of("document-id", "key"));
        try (IdempotentWriter<Event> writer = sink.createWriter(context(OptionalLong.empty()))) {
            writer.write(new Event("1", "a", "x", 1));
            writer.write(new Event("2", "a", "y", 2));
            writer.write(new Event("3", "b", "z", 1));
            writer.flush();
            writer.write(new Event("1", "a", "x", 1)); // a replay of an older record of key a
            writer.write(new Event("2", "a", "y", 2)); // and of the current one
            writer.flush();
        }
        assertThat(documents(index)).containsExactlyEntriesOf(new TreeMap<>(Map.of("a", "a/y/2", "b", "b/z/1")));
    }

    private static void createIndexWhereKeyIsANumber(String index) throws Exception {
        client.indices().create(c -> c.index(index).mappings(m -> m.properties("key", p -> p.long_(l -> l))));
    }

    @Test
    void aRejectedDocumentFailsTheJobNamingTheRecordAndTheReason() throws Exception {
        String index = newIndex();
        createIndexWhereKeyIsANumber(index);
        IdempotentSink<Event> sink = sink(IdempotentSink.class, index, Map.of());
        try (IdempotentWriter<Event> writer = sink.createWriter(context(OptionalLong.empty()))) {
            writer.write(new Event("ok-1", "17", "fine", 1));
            writer.write(new Event("bad-1", "not-a-number", "refused", 2));
            assertThatThrownBy(writer::flush).isInstanceOf(ElasticsearchSinkException.class)
                    .hasMessageContaining("record 'bad-1'").hasMessageContaining("index '" + index + "'")
                    .hasMessageContaining("parsing_exception").hasMessageContaining("on-rejected: dead-letter");
        }
    }

    @Test
    void aRejectedDocumentGoesToTheDeadLetterIndexOnceAndTheOthersAreWritten() throws Exception {
        String index = newIndex();
        String deadLetters = index + "-dlq";
        createIndexWhereKeyIsANumber(index);
        IdempotentSink<Event> sink = sink(IdempotentSink.class, index,
                Map.of("on-rejected", "dead-letter", "dead-letter-index", deadLetters));
        try (IdempotentWriter<Event> writer = sink.createWriter(context(OptionalLong.empty()))) {
            for (int attempt = 0; attempt < 2; attempt++) { // the second pass is a replay
                writer.write(new Event("ok-1", "17", "fine", 1));
                writer.write(new Event("bad-1", "not-a-number", "refused", 2));
                writer.flush();
            }
        }
        assertThat(documents(index)).containsOnlyKeys("ok-1");
        client.indices().refresh(r -> r.index(deadLetters));
        List<Hit<DeadLetter>> letters = client.search(s -> s.index(deadLetters), DeadLetter.class).hits().hits();
        assertThat(letters).hasSize(1);
        DeadLetter letter = letters.get(0).source();
        assertThat(letter.record()).isEqualTo("record 'bad-1'");
        assertThat(letter.index()).isEqualTo(index);
        assertThat(letter.documentId()).isEqualTo("bad-1");
        assertThat(letter.document()).isEqualTo("{\"id\":\"bad-1\",\"key\":\"not-a-number\",\"payload\":\"refused\",\"count\":2}");
        assertThat(letter.errorType()).endsWith("parsing_exception");
        assertThat(letters.get(0).id()).isEqualTo(index + "/bad-1");
    }

    @Test
    void writeAheadSendsToTheCheckpointsDateIndexAndTheCommitterRemembersIt() throws Exception {
        String prefix = newIndex();
        String committerIndex = prefix + "-checkpoints";
        GenericWriteAheadSink<Event> sink = sink(GenericWriteAheadSink.class, prefix + "-{yyyy.MM.dd}",
                Map.of("mode", "write-ahead", "committer-index", committerIndex));
        long checkpointTime = 1_795_996_799_999L; // 2026-11-29T23:59:59.999Z
        try (WriteAheadWriter<Event> writer = sink.createWriter(context(OptionalLong.empty()));
                CheckpointCommitter committer = sink.createCommitter(context(OptionalLong.empty()))) {
            committer.open();
            assertThat(committer.isCheckpointCommitted(0, 1)).isFalse();
            assertThat(writer.sendValues(events(0, 10), 0, 1, checkpointTime)).isTrue();
            committer.commitCheckpoint(0, 1);
            committer.commitCheckpoint(0, 1); // idempotent
            assertThat(writer.sendValues(events(10, 12), 0, 2, checkpointTime + 1)).isTrue();
            committer.commitCheckpoint(0, 2);
            assertThat(committer.isCheckpointCommitted(0, 1)).isTrue();
            assertThat(committer.isCheckpointCommitted(0, 2)).isTrue();
            assertThat(committer.isCheckpointCommitted(1, 1)).as("another subtask's marker").isFalse();
        }
        assertThat(documents(prefix + "-2026.11.29")).hasSize(10);
        assertThat(documents(prefix + "-2026.11.30")).containsOnlyKeys("10", "11");

        // Restoring checkpoint 1 abandons what came after it: marker 2 must go, or a new checkpoint 2 would be skipped.
        try (CheckpointCommitter committer = sink.createCommitter(context(OptionalLong.of(1)))) {
            committer.open();
            assertThat(committer.isCheckpointCommitted(0, 1)).isTrue();
            assertThat(committer.isCheckpointCommitted(0, 2)).isFalse();
        }
    }
}
