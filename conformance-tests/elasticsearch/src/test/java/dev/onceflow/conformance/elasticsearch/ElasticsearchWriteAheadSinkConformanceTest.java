package dev.onceflow.conformance.elasticsearch;

/**
 * The suite against the Elasticsearch sink's write-ahead mode: documents kept in the checkpoint,
 * indexed after it completes, then marked in the committer index.
 */
class ElasticsearchWriteAheadSinkConformanceTest extends ElasticsearchConformanceSuite {

    @Override
    protected String mode() {
        return "write-ahead";
    }
}
