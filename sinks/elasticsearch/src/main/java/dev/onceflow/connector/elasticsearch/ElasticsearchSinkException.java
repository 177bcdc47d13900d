package dev.onceflow.connector.elasticsearch;

/** A failure of the Elasticsearch sink whose message says which records, which index and why. */
public final class ElasticsearchSinkException extends Exception {

    private static final long serialVersionUID = 1L;

    ElasticsearchSinkException(String message) {
        super(message);
    }

    ElasticsearchSinkException(String message, Throwable cause) {
        super(message, cause);
    }
}
