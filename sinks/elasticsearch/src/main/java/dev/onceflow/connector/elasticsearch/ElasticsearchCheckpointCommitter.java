package dev.onceflow.connector.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.search.Hit;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.SinkContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remembers which write-ahead segments were sent: one marker document per (job, sink uid, subtask,
 * checkpoint id) in a committer index of its own (WAL-2), with that tuple as its id. Marker writes
 * and lookups by id are real-time and durable when acknowledged (the translog is synced per
 * request by default), so a lookup right after a crash sees every marker written before it.
 *
 * <p>Markers of checkpoints after the restored one (all of them on a fresh start) belong to a
 * history the job abandoned; {@link #open} deletes those of the subtasks this writer owns, or a new
 * checkpoint reusing the id would be skipped as already sent.
 */
final class ElasticsearchCheckpointCommitter implements CheckpointCommitter {

    /** The committer index used unless configured otherwise. */
    static final String DEFAULT_INDEX = "onceflow-checkpoints";

    private static final Logger LOG = LoggerFactory.getLogger(ElasticsearchCheckpointCommitter.class);

    private final SinkContext context;
    private final ElasticsearchClient client;
    private final ElasticsearchSettings settings;
    private final String index;
    private final String owner;

    ElasticsearchCheckpointCommitter(SinkContext context, ElasticsearchClient client, ElasticsearchSettings settings) {
        this.context = context;
        this.client = client;
        this.settings = settings;
        this.index = settings.committerIndex();
        this.owner = context.sinkUid() + "-" + context.subtaskIndex() + " committer";
    }

    /** The marker document of a segment. */
    record Marker(String job, String sink, int subtask, long checkpoint, String committedAt) {
    }

    @Override
    public void open() throws Exception {
        Backoff.retrying(settings, owner, "preparing the committer index '" + index + "'", () -> {
            createIndexIfMissing();
            forgetAbandonedCheckpoints();
            return null;
        });
    }

    private void createIndexIfMissing() throws Exception {
        if (client.indices().exists(e -> e.index(index)).value()) {
            return;
        }
        try {
            client.indices().create(c -> c.index(index).mappings(m -> m
                    .properties("job", p -> p.keyword(k -> k))
                    .properties("sink", p -> p.keyword(k -> k))
                    .properties("subtask", p -> p.integer(i -> i))
                    .properties("checkpoint", p -> p.long_(l -> l))
                    .properties("committedAt", p -> p.date(d -> d))));
        } catch (ElasticsearchException e) {
            // Another subtask created it first.
            if (e.error() == null || !"resource_already_exists_exception".equals(e.error().type())) {
                throw e;
            }
        }
    }

    private void forgetAbandonedCheckpoints() throws Exception {
        long after = context.restoredCheckpointId().orElse(Long.MIN_VALUE);
        // Every subtask index j with j % parallelism == this subtask: its own, and those a scale-down retired.
        List<FieldValue> owned = new ArrayList<>();
        for (int j = context.subtaskIndex(); j < Math.max(context.parallelism(), context.restoredParallelism());
                j += context.parallelism()) {
            owned.add(FieldValue.of(j));
        }
        client.indices().refresh(r -> r.index(index)); // search sees only refreshed markers
        int forgotten = 0;
        while (true) {
            SearchResponse<Marker> found = client.search(s -> s.index(index).size(1000)
                    .query(q -> q.bool(b -> {
                        b.filter(f -> f.term(t -> t.field("job").value(context.jobName())))
                                .filter(f -> f.term(t -> t.field("sink").value(context.sinkUid())))
                                .filter(f -> f.terms(t -> t.field("subtask").terms(v -> v.value(owned))));
                        if (context.restoredCheckpointId().isPresent()) { // else: every marker is of an abandoned history
                            b.filter(f -> f.range(r -> r.number(n -> n.field("checkpoint").gt((double) after))));
                        }
                        return b;
                    })), Marker.class);
            List<Hit<Marker>> hits = found.hits().hits();
            if (hits.isEmpty()) {
                break;
            }
            List<BulkOperation> deletes = hits.stream()
                    .map(h -> BulkOperation.of(b -> b.delete(d -> d.index(index).id(h.id())))).toList();
            var response = client.bulk(b -> b.operations(deletes).refresh(Refresh.True));
            if (response.errors()) {
                throw new ElasticsearchSinkException("could not delete abandoned checkpoint markers from '" + index
                        + "': " + response.items().stream().filter(i -> i.error() != null).findFirst()
                                .map(i -> i.error().reason()).orElse("?"));
            }
            forgotten += hits.size();
        }
        if (forgotten > 0) {
            LOG.info("forgot {} checkpoint markers of subtask {} of {}/{} after checkpoint {}: that history was "
                    + "abandoned by restoring an earlier state or starting afresh", forgotten, context.subtaskIndex(),
                    context.jobName(), context.sinkUid(),
                    context.restoredCheckpointId().isPresent() ? Long.toString(after) : "none");
        }
    }

    @Override
    public boolean isCheckpointCommitted(int subtaskIndex, long checkpointId) throws Exception {
        String id = markerId(subtaskIndex, checkpointId);
        return Backoff.retrying(settings, owner, "looking up marker " + id,
                () -> client.exists(e -> e.index(index).id(id)).value());
    }

    /** Idempotent: writing a marker again overwrites it with the same tuple. */
    @Override
    public void commitCheckpoint(int subtaskIndex, long checkpointId) throws Exception {
        Marker marker = new Marker(context.jobName(), context.sinkUid(), subtaskIndex, checkpointId,
                Instant.now().toString());
        String id = markerId(subtaskIndex, checkpointId);
        Backoff.retrying(settings, owner, "writing marker " + id,
                () -> client.index(i -> i.index(index).id(id).document(marker)));
    }

    private String markerId(int subtaskIndex, long checkpointId) {
        return context.jobName() + "/" + context.sinkUid() + "/" + subtaskIndex + "/" + checkpointId;
    }

    @Override
    public void close() throws Exception {
        client._transport().close();
    }
}
