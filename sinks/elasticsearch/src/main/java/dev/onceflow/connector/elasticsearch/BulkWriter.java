package dev.onceflow.connector.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorCause;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.transport.TransportException;
import dev.onceflow.spi.sink.SinkContext;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.elasticsearch.client.ResponseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Groups documents into bulk requests and sends them on background threads, at most
 * {@code concurrency} at a time, so the task thread keeps producing while a request is in flight.
 * {@link #flush()} returns only when every document added before it is acknowledged: that is what
 * lets a barrier pass (IDEM-2) and a write-ahead segment count as sent.
 *
 * <p>Failures: whole requests failing with 429, 5xx or a connection error, and items answered 429
 * or 5xx, are retried with exponential backoff for up to {@code retry.max-duration}; every action
 * is idempotent except those with {@link DocumentId#AUTO} ids. A {@code 409} on a {@code create} or
 * versioned action means the document (or a newer one) is there already. Any other item failure
 * is a rejection of the document itself, handled by {@link OnRejected}. A failure is rethrown by
 * the next {@link #add} or {@link #flush} on the task thread.
 */
final class BulkWriter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BulkWriter.class);

    private final ElasticsearchClient client;
    private final ElasticsearchSettings settings;
    private final String owner;
    private final ExecutorService senders;
    private final Semaphore permits;
    private final ArrayDeque<Future<?>> inFlight = new ArrayDeque<>();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private List<PendingDocument> buffer = new ArrayList<>();
    private long bufferedBytes;

    /**
     * @param owner who writes, for thread names and messages ({@code <sink uid>/<subtask>})
     */
    BulkWriter(ElasticsearchClient client, ElasticsearchSettings settings, String owner) {
        this.client = client;
        this.settings = settings;
        this.owner = owner;
        this.permits = new Semaphore(settings.concurrency());
        AtomicInteger threads = new AtomicInteger();
        this.senders = Executors.newFixedThreadPool(settings.concurrency(), runnable -> {
            Thread thread = new Thread(runnable, "elasticsearch-bulk-" + owner + "-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The writer of one subtask, with a client of its own. */
    static BulkWriter forSubtask(ElasticsearchSettings settings, SinkContext context)
            throws Exception {
        return new BulkWriter(settings.openClient(), settings, context.sinkUid() + "-" + context.subtaskIndex());
    }

    /** Buffers a document; sends a bulk request when the buffer reaches its size or byte limit. */
    void add(PendingDocument document) throws Exception {
        rethrowFailure();
        buffer.add(document);
        bufferedBytes += document.estimatedBytes();
        if (buffer.size() >= settings.bulkActions() || bufferedBytes >= settings.bulkBytes()) {
            dispatch();
        }
    }

    /** Sends what is buffered and waits until every document added so far is acknowledged. */
    void flush() throws Exception {
        dispatch();
        while (!inFlight.isEmpty()) {
            try {
                inFlight.peek().get();
            } catch (ExecutionException e) {
                // The task records its failure itself; an ExecutionException here is a bug in it.
                failure.compareAndSet(null, e);
            }
            inFlight.poll();
        }
        rethrowFailure();
    }

    private void dispatch() throws InterruptedException {
        if (buffer.isEmpty()) {
            return;
        }
        List<PendingDocument> batch = buffer;
        buffer = new ArrayList<>(Math.min(settings.bulkActions(), 4096));
        bufferedBytes = 0;
        permits.acquire(); // backpressure: the task thread waits while `concurrency` requests are in flight
        try {
            inFlight.add(senders.submit(() -> {
                try {
                    send(batch);
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                } finally {
                    permits.release();
                }
            }));
        } catch (RuntimeException e) {
            permits.release();
            throw e;
        }
        while (!inFlight.isEmpty() && inFlight.peek().isDone()) {
            inFlight.poll();
        }
    }

    private void rethrowFailure() throws Exception {
        Exception e = failure.get();
        if (e != null) {
            throw e;
        }
    }

    /** Sends one batch until every document is written, rejected (and handled) or the retry time is up. */
    private void send(List<PendingDocument> batch) throws Exception {
        Backoff backoff = new Backoff(settings);
        List<PendingDocument> todo = batch;
        while (true) {
            BulkResponse response;
            try {
                List<BulkOperation> operations = new ArrayList<>(todo.size());
                for (PendingDocument document : todo) {
                    operations.add(document.operation());
                }
                response = client.bulk(b -> b.operations(operations));
            } catch (Exception e) {
                if (!isRetryable(e)) {
                    throw new ElasticsearchSinkException(owner + ": a bulk request of " + todo.size()
                            + " documents failed and is not retryable: " + describe(e), e);
                }
                backoff.waitOrGiveUp(owner, todo.size() + " documents", describe(e), e);
                continue;
            }
            if (!response.errors()) {
                return;
            }
            List<PendingDocument> retry = new ArrayList<>();
            Map<PendingDocument, ErrorCause> rejected = new LinkedHashMap<>();
            String retryReason = null;
            List<BulkResponseItem> items = response.items();
            for (int i = 0; i < items.size(); i++) {
                BulkResponseItem item = items.get(i);
                PendingDocument document = todo.get(i);
                if (item.error() == null) {
                    continue;
                }
                int status = item.status();
                if (status == 409 && document.conflictMeansWritten()) {
                    continue;
                }
                if (isRetryableStatus(status)) {
                    retry.add(document);
                    retryReason = status + " " + item.error().type() + ": " + item.error().reason();
                } else {
                    rejected.put(document, item.error());
                }
            }
            if (!rejected.isEmpty()) {
                handleRejected(rejected);
            }
            if (retry.isEmpty()) {
                return;
            }
            backoff.waitOrGiveUp(owner, retry.size() + " of " + todo.size() + " bulk items", retryReason, null);
            todo = retry;
        }
    }

    /**
     * A document refused for its content: fail naming it, or write it to the dead-letter index with
     * an id derived from its target, so a replay rewrites the same dead letter.
     */
    private void handleRejected(Map<PendingDocument, ErrorCause> rejected) throws Exception {
        if (settings.onRejected() == OnRejected.FAIL) {
            Map.Entry<PendingDocument, ErrorCause> first = rejected.entrySet().iterator().next();
            PendingDocument document = first.getKey();
            throw new ElasticsearchSinkException(owner + ": Elasticsearch rejected the document of "
                    + document.record() + " for index '" + document.index() + "': " + first.getValue().type()
                    + ": " + first.getValue().reason() + (rejected.size() > 1 ? " (and " + (rejected.size() - 1)
                    + " more documents of the same bulk request)" : "")
                    + ". Fix the mapping or the data, or set on-rejected: dead-letter to route rejected documents to '"
                    + settings.deadLetterIndex() + "'");
        }
        List<PendingDocument> letters = new ArrayList<>(rejected.size());
        rejected.forEach((document, error) -> {
            DeadLetter letter = DeadLetter.of(document, error);
            String id = document.index() + "/" + (document.id() != null ? document.id() : contentId(document.source()));
            letters.add(new PendingDocument(document.record(), settings.deadLetterIndex(), id,
                    BulkOperation.of(b -> b.index(x -> x.index(settings.deadLetterIndex()).id(id).document(letter))),
                    false, document.estimatedBytes(), document.source()));
        });
        LOG.warn("{}: Elasticsearch rejected {} documents (first: {} for index '{}': {}); written to the "
                + "dead-letter index '{}'", owner, rejected.size(), letters.get(0).record(),
                rejected.keySet().iterator().next().index(), rejected.values().iterator().next().reason(),
                settings.deadLetterIndex());
        sendDeadLetters(letters);
    }

    /**
     * A document without id (document-id: auto) is dead-lettered under a digest of its content:
     * a replay of the same record rewrites the same dead letter.
     */
    private static String contentId(byte[] source) {
        try {
            return "sha256-" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(source));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private void sendDeadLetters(List<PendingDocument> letters) throws Exception {
        Backoff backoff = new Backoff(settings);
        while (true) {
            BulkResponse response;
            try {
                response = client.bulk(b -> b.operations(letters.stream().map(PendingDocument::operation).toList()));
            } catch (Exception e) {
                if (!isRetryable(e)) {
                    throw new ElasticsearchSinkException(owner + ": writing " + letters.size()
                            + " dead letters failed: " + describe(e), e);
                }
                backoff.waitOrGiveUp(owner, letters.size() + " dead letters", describe(e), e);
                continue;
            }
            for (int i = 0; i < response.items().size(); i++) {
                BulkResponseItem item = response.items().get(i);
                if (item.error() != null) {
                    // Never drop a record: a dead letter that cannot be written fails the job.
                    throw new ElasticsearchSinkException(owner + ": the dead-letter index '" + settings.deadLetterIndex()
                            + "' refused the dead letter of " + letters.get(i).record() + ": "
                            + item.status() + " " + item.error().type() + ": " + item.error().reason());
                }
            }
            return;
        }
    }

    static boolean isRetryableStatus(int status) {
        return status == 429 || status >= 500;
    }

    /** 429, 5xx and connection-level failures are worth retrying; 4xx answers are not. */
    static boolean isRetryable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ElasticsearchException ee) {
                return isRetryableStatus(ee.status());
            }
            if (t instanceof ResponseException re) {
                return isRetryableStatus(re.getResponse().getStatusLine().getStatusCode());
            }
            if (t instanceof TransportException te && te.statusCode() > 0) {
                return isRetryableStatus(te.statusCode());
            }
        }
        return e instanceof IOException;
    }

    static String describe(Throwable e) {
        if (e instanceof ElasticsearchException ee && ee.error() != null) {
            return ee.status() + " " + ee.error().type() + ": " + ee.error().reason();
        }
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    /**
     * Stops the senders. Documents not yet acknowledged are abandoned: the job replays them from the
     * last checkpoint.
     */
    @Override
    public void close() throws Exception {
        senders.shutdownNow();
        try {
            if (!senders.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("{}: bulk requests still running 10 s after close; abandoned", owner);
            }
        } finally {
            client._transport().close();
        }
    }
}
