package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A topic name in which {@code {field}} stands for a field's value, such as {@code orders-{region}}:
 * a topic per value. Checked against the input schema when the job is built. Immutable.
 */
final class TopicTemplate {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([^{}]*)}");
    private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    private final String template;
    /** The text between placeholders: one more than there are placeholders. */
    private final List<String> literals;
    private final int[] positions;
    private final DataType[] types;

    private TopicTemplate(String template, List<String> literals, int[] positions, DataType[] types) {
        this.template = template;
        this.literals = literals;
        this.positions = positions;
        this.types = types;
    }

    /**
     * @throws IllegalArgumentException naming the placeholder when it is not a scalar field of
     *     {@code schema}
     */
    static TopicTemplate parse(String template, Schema schema) {
        List<String> literals = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        Matcher matcher = PLACEHOLDER.matcher(template);
        int end = 0;
        while (matcher.find()) {
            String name = matcher.group(1);
            int position = schema.indexOf(name);
            if (position < 0) {
                throw new IllegalArgumentException("topic '" + template + "' names {" + name + "}, which is not a "
                        + "field of the input (fields: " + String.join(", ", schema.names()) + ")");
            }
            if (schema.field(position).type().isNested()) {
                throw new IllegalArgumentException("topic '" + template + "' names {" + name + "}, a "
                        + schema.field(position).type().kind().typeName() + "; only a scalar field can name a topic");
            }
            literals.add(template.substring(end, matcher.start()));
            positions.add(position);
            end = matcher.end();
        }
        literals.add(template.substring(end));
        if (positions.isEmpty() && !isLegal(template)) {
            throw new IllegalArgumentException("topic '" + template + "' is not a legal Kafka topic name (1-249 of "
                    + "a-z A-Z 0-9 . _ -)");
        }
        DataType[] types = positions.stream().map(p -> schema.field(p).type()).toArray(DataType[]::new);
        return new TopicTemplate(template, List.copyOf(literals), positions.stream().mapToInt(i -> i).toArray(),
                types);
    }

    static boolean isLegal(String name) {
        return LEGAL_TOPIC.matcher(name).matches() && !name.equals(".") && !name.equals("..");
    }

    /**
     * The topic of {@code row}.
     *
     * @throws IllegalArgumentException naming the record ({@code describe}) when a field it needs is
     *     null or its value makes an illegal topic name; never dropped silently
     */
    String resolve(Row row, java.util.function.Supplier<String> describe) {
        if (positions.length == 0) {
            return template;
        }
        StringBuilder name = new StringBuilder(literals.get(0));
        for (int i = 0; i < positions.length; i++) {
            Object value = row.get(positions[i]);
            if (value == null) {
                throw new IllegalArgumentException(describe.get() + " has no value in field '"
                        + row.schema().field(positions[i]).name() + "', which the topic '" + template + "' needs");
            }
            name.append(TextValues.format(types[i], value)).append(literals.get(i + 1));
        }
        String topic = name.toString();
        if (!isLegal(topic)) {
            throw new IllegalArgumentException(describe.get() + " makes '" + TextValues.abbreviate(topic)
                    + "' from the topic template " + template + ": not a legal Kafka topic name (1-249 of "
                    + "a-z A-Z 0-9 . _ -)");
        }
        return topic;
    }

    @Override
    public String toString() {
        return template;
    }
}
