package dev.onceflow.connector.kafka.common;

import dev.onceflow.spi.factory.Option;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Kafka client settings a job passes through as {@code properties.<setting>}: how they are
 * declared as options, which of them reach an admin client, and how they are shown without their
 * secrets. Shared by the Kafka source and sink, which each decide which settings they manage.
 */
public final class PassThroughSettings {

    /** Prefix of the options passed to the Kafka clients as they are. */
    public static final String PREFIX = "properties.";

    /** Keys whose values are never logged: passwords, keys, JAAS configurations, tokens. */
    private static final Pattern SECRET = Pattern.compile("password|secret|jaas|token|credential|ssl\\.key|keystore\\.key"
            + "|truststore\\.certificates|keystore\\.certificate");

    private PassThroughSettings() {
    }

    /** Whether the value of {@code key} must never be logged or echoed. */
    public static boolean isSecret(String key) {
        return SECRET.matcher(key.toLowerCase(Locale.ROOT)).find();
    }

    /**
     * One string option {@code properties.<key>} per key, described as a {@code client} setting
     * passed to {@code owner}'s clients as is.
     *
     * @param client "consumer" or "producer"
     * @param owner "source" or "sink"
     */
    public static List<Option<String>> options(Set<String> keys, String client, String owner) {
        return keys.stream().sorted()
                .map(key -> Option.stringOption(PREFIX + key)
                        .description("Kafka " + client + " setting '" + key + "', passed to the " + owner
                                + "'s clients as is" + (isSecret(key) ? " (never logged)." : ".")))
                .toList();
    }

    /** An admin client's settings: the pass-through keys an admin client knows (security, timeouts), and the brokers. */
    public static Map<String, Object> admin(Map<String, String> passThrough, String bootstrapServers) {
        Map<String, Object> props = new HashMap<>();
        passThrough.forEach((key, value) -> {
            if (AdminClientConfig.configNames().contains(key)) {
                props.put(key, value);
            }
        });
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return props;
    }

    /** The settings sorted by key, secret values replaced by {@code [hidden]}: safe for logs and messages. */
    public static Map<String, String> shown(Map<String, String> passThrough) {
        Map<String, String> shown = new TreeMap<>();
        passThrough.forEach((key, value) -> shown.put(key, isSecret(key) ? "[hidden]" : value));
        return shown;
    }
}
