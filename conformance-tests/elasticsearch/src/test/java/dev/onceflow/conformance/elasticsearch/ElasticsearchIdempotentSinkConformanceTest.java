package dev.onceflow.conformance.elasticsearch;

/**
 * The suite against the Elasticsearch sink's idempotent mode: documents with the record id as
 * {@code _id}, flushed at every barrier. The index's final state is what the suite checks.
 */
class ElasticsearchIdempotentSinkConformanceTest extends ElasticsearchConformanceSuite {

    @Override
    protected String mode() {
        return "idempotent";
    }
}
