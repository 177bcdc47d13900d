package dev.onceflow.connector.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.http.Header;
import org.apache.http.HttpHost;
import org.apache.http.auth.AuthScope;
import org.apache.http.auth.UsernamePasswordCredentials;
import org.apache.http.conn.ssl.NoopHostnameVerifier;
import org.apache.http.impl.client.BasicCredentialsProvider;
import org.apache.http.message.BasicHeader;
import org.elasticsearch.client.RestClient;
import org.elasticsearch.client.RestClientBuilder;

/**
 * Everything the sink's writers and committer need, immutable and shared by all subtasks. Its
 * {@link #toString()} never shows credentials.
 *
 * @param hosts the cluster's HTTP endpoints
 * @param index the target index pattern
 * @param documentId where document ids come from
 * @param opType the bulk action for documents keyed by record id
 * @param bulkActions documents per bulk request
 * @param bulkBytes approximate bytes per bulk request
 * @param concurrency bulk requests in flight per subtask
 * @param retryMaxDuration how long a bulk request is retried on 429, 5xx and connection errors
 * @param retryInitialBackoff the first wait between retries; it doubles up to {@link #MAX_BACKOFF}
 * @param requestTimeout socket and connect timeout of each request
 * @param onRejected what happens to a document rejected for its content
 * @param deadLetterIndex where rejected documents go under {@link OnRejected#DEAD_LETTER}
 * @param committerIndex the write-ahead mode's index of sent checkpoints
 * @param credentials basic or API-key authentication, if any
 * @param tls trust settings for {@code https} hosts
 */
record ElasticsearchSettings(List<URI> hosts, IndexName index, DocumentId documentId, OpType opType,
        int bulkActions, long bulkBytes, int concurrency, Duration retryMaxDuration, Duration retryInitialBackoff,
        Duration requestTimeout, OnRejected onRejected, String deadLetterIndex, String committerIndex,
        Credentials credentials, Tls tls) {

    /** The longest wait between two retries. */
    static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    ElasticsearchSettings {
        hosts = List.copyOf(hosts);
        Objects.requireNonNull(index, "index");
        Objects.requireNonNull(credentials, "credentials");
        Objects.requireNonNull(tls, "tls");
    }

    /** Authentication: none, a user and password, or an API key. Never printed. */
    record Credentials(Optional<String> username, Optional<String> password, Optional<String> apiKey) {

        static final Credentials NONE = new Credentials(Optional.empty(), Optional.empty(), Optional.empty());

        @Override
        public String toString() {
            return apiKey.isPresent() ? "api-key" : username.map(u -> "user " + u).orElse("none");
        }
    }

    /** Trust store for {@code https} hosts (the JDK's default trust when absent) and host name checking. */
    record Tls(Optional<Path> truststore, Optional<String> truststorePassword, boolean verifyHostname) {

        static final Tls DEFAULT = new Tls(Optional.empty(), Optional.empty(), true);

        @Override
        public String toString() {
            return truststore.map(p -> "truststore " + p).orElse("default trust")
                    + (verifyHostname ? "" : ", host names not verified");
        }
    }

    /** Whether {@code text} is a comma-separated list of {@code http(s)://host:port} URLs. */
    static boolean isValidHostList(String text) {
        try {
            return !parseHosts(text).isEmpty();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static List<URI> parseHosts(String text) {
        List<URI> hosts = new ArrayList<>();
        for (String part : text.split(",")) {
            URI uri = URI.create(part.trim());
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                    || uri.getPort() < 0 || uri.getUserInfo() != null) {
                throw new IllegalArgumentException(part);
            }
            hosts.add(uri);
        }
        return hosts;
    }

    /**
     * Opens a client on the hosts. Each writer and committer opens its own and closes it with
     * {@link ElasticsearchClient#close()}, which closes the HTTP connections.
     */
    ElasticsearchClient openClient() throws Exception {
        HttpHost[] httpHosts = hosts.stream().map(u -> new HttpHost(u.getHost(), u.getPort(), u.getScheme()))
                .toArray(HttpHost[]::new);
        RestClientBuilder builder = RestClient.builder(httpHosts);
        int timeoutMillis = (int) Math.min(Integer.MAX_VALUE, requestTimeout.toMillis());
        builder.setRequestConfigCallback(config -> config.setConnectTimeout(timeoutMillis)
                .setSocketTimeout(timeoutMillis));
        credentials.apiKey().ifPresent(key -> builder.setDefaultHeaders(
                new Header[] {new BasicHeader("Authorization", "ApiKey " + key)}));
        SSLContext sslContext = sslContext();
        builder.setHttpClientConfigCallback(http -> {
            if (credentials.username().isPresent()) {
                BasicCredentialsProvider provider = new BasicCredentialsProvider();
                provider.setCredentials(AuthScope.ANY, new UsernamePasswordCredentials(credentials.username().get(),
                        credentials.password().orElse("")));
                http.setDefaultCredentialsProvider(provider);
            }
            if (sslContext != null) {
                http.setSSLContext(sslContext);
            }
            if (!tls.verifyHostname()) {
                http.setSSLHostnameVerifier(NoopHostnameVerifier.INSTANCE);
            }
            return http;
        });
        RestClient restClient = builder.build();
        return new ElasticsearchClient(new RestClientTransport(restClient, new JacksonJsonpMapper()));
    }

    /** The trust store's SSL context, or {@code null} for the JDK's default trust. */
    private SSLContext sslContext() throws Exception {
        if (tls.truststore().isEmpty()) {
            return null;
        }
        Path path = tls.truststore().get();
        KeyStore store = KeyStore.getInstance(path.toString().endsWith(".jks") ? "JKS" : "PKCS12");
        try (InputStream in = Files.newInputStream(path)) {
            store.load(in, tls.truststorePassword().map(String::toCharArray).orElse(null));
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot read the trust store " + path + ": " + e.getMessage(), e);
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }

    @Override
    public String toString() {
        return "hosts=" + hosts + ", index=" + index + ", documentId=" + documentId + ", opType=" + opType
                + ", bulk=" + bulkActions + " actions/" + bulkBytes + " bytes x" + concurrency + ", onRejected="
                + onRejected + ", auth=" + credentials + ", tls=" + tls;
    }
}
