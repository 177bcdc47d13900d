package dev.onceflow.benchmarks;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The Flink side of the Kafka comparisons of #9 (b): Flink's own {@code flink-connector-kafka}
 * {@link KafkaSource} -> keyBy(key) -> the same running count in Flink keyed state -> Flink's
 * {@link KafkaSink} with {@link DeliveryGuarantee#EXACTLY_ONCE} (Kafka transactions committed
 * after each checkpoint), parallelism 2, checkpoints every second, on a MiniCluster (one task
 * manager, two slots, loopback only). Records are read and written in the benchmark's format
 * (key = the event's key, value = {@link EventFormat} line), as Onceflow's Kafka connectors do.
 *
 * <p>It runs in a child JVM ({@link Child}): the connector calls kafka-clients internals that
 * changed after 4.2, so that JVM's class path carries the kafka-clients the connector was built
 * against ({@code target/lib-flink-kafka}) instead of the project's. The MiniCluster starts once
 * and serves every run, as Onceflow's runtime needs no cluster started; the parent times each run
 * from its request to the job's end, the same span it times for Onceflow's job. The child reads
 * requests on stdin and answers on stdout with lines that start with {@value #PREFIX}; Flink's
 * own logging goes to stderr.
 */
final class FlinkKafkaJob implements AutoCloseable {

    static final String PREFIX = "@@flink-kafka ";

    /**
     * The child JVM: {@code FlinkKafkaJob <bootstrap servers> <checkpoint directory>}, then one
     * request per line on stdin: {@code run <input> <output> bounded|unbounded [<jdbc url>]} (with
     * a JDBC URL the output is a PostgreSQL table written by Flink's XA sink, else a topic),
     * {@code cancel}, {@code quit}.
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: FlinkKafkaJob <bootstrap servers> <checkpoint directory>");
            System.exit(2);
        }
        try (FlinkKafkaJob flink = new FlinkKafkaJob(args[0], java.nio.file.Path.of(args[1]));
                java.io.BufferedReader requests = new java.io.BufferedReader(
                        new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            answer("ready");
            JobClient current = null;
            for (String line = requests.readLine(); line != null && !line.equals("quit"); line = requests.readLine()) {
                String[] words = line.split(" ");
                if (words[0].equals("run") && (words.length == 4 || words.length == 5)) {
                    boolean bounded = words[3].equals("bounded");
                    current = flink.start(words[1], words[2], bounded, words.length == 5 ? words[4] : null);
                    answer("submitted " + current.getJobID());
                    if (bounded) {
                        current.getJobExecutionResult().get();
                        List<Long> durations = FlinkComparisonBenchmark.flinkCheckpointDurations(flink.rest,
                                current.getJobID().toHexString());
                        answer("finished " + durations.stream().map(String::valueOf).collect(Collectors.joining(",")));
                        current = null;
                    }
                } else if (words[0].equals("cancel") && current != null) {
                    current.cancel().get();
                    current = null;
                    answer("cancelled");
                } else {
                    answer("error unknown request: " + line);
                }
            }
        }
    }

    private static void answer(String line) {
        System.out.println(PREFIX + line);
        System.out.flush();
    }

    private final MiniCluster cluster;
    private final URI rest;
    private final String bootstrapServers;

    FlinkKafkaJob(String bootstrapServers, java.nio.file.Path checkpoints) throws Exception {
        this.bootstrapServers = bootstrapServers;
        cluster = FlinkComparisonBenchmark.startMiniCluster(checkpoints);
        rest = cluster.getRestAddress().get();
    }

    /**
     * Submits the job from {@code input} to {@code output}: a topic, or with a {@code jdbcUrl} a
     * table of PostgreSQL ({@code id, key, count, payload}) written by Flink's exactly-once JDBC
     * sink (XA transactions, prepared at the checkpoint, committed after it). Bounded, the job
     * ends once it read the offsets that were the end of the input at its start, its last
     * transaction committed.
     */
    JobClient start(String input, String output, boolean bounded, String jdbcUrl) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort());
        env.setParallelism(FlinkComparisonBenchmark.PARALLELISM);
        env.enableCheckpointing(1_000);
        KafkaSourceBuilder<Event> source = KafkaSource.<Event>builder()
                .setBootstrapServers(bootstrapServers)
                .setTopics(input)
                .setGroupId("flink-" + output)
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setProperty("isolation.level", "read_committed")
                .setDeserializer(new EventDeserializer());
        if (bounded) {
            source.setBounded(OffsetsInitializer.latest());
        }
        org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator<Event> counted = env
                .fromSource(source.build(), WatermarkStrategy.noWatermarks(), "kafka-in").uid("kafka-in")
                .keyBy(Event::key)
                .process(new FlinkComparisonBenchmark.FlinkCountByKey()).uid("count-by-key");
        if (jdbcUrl != null) {
            counted.sinkTo(jdbcSink(output, jdbcUrl)).uid("jdbc-out");
            return env.executeAsync("flink-jdbc-" + output);
        }
        KafkaSink<Event> sink = KafkaSink.<Event>builder()
                .setBootstrapServers(bootstrapServers)
                .setRecordSerializer(new EventSerializer(output))
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix("flink-" + output)
                // Below the broker's transaction.max.timeout.ms (15 min); Flink's default is 1 h.
                .setProperty("transaction.timeout.ms", "600000")
                .build();
        counted.sinkTo(sink).uid("kafka-out");
        return env.executeAsync("flink-kafka-" + output);
    }

    /**
     * Flink's own exactly-once JDBC sink ({@code flink-connector-jdbc-core}): batched INSERTs
     * inside an XA transaction per checkpoint and subtask, one connection per transaction (what
     * PostgreSQL's XA support needs), no retries (the XA mode refuses them).
     */
    private static org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink<Event> jdbcSink(String table,
            String url) {
        return org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink.<Event>builder()
                .withQueryStatement("INSERT INTO " + table + " (id, key, count, payload) VALUES (?, ?, ?, ?)",
                        new EventStatement())
                .withExecutionOptions(org.apache.flink.connector.jdbc.JdbcExecutionOptions.builder()
                        .withBatchSize(5000).withMaxRetries(0).build())
                .buildExactlyOnce(org.apache.flink.connector.jdbc.JdbcExactlyOnceOptions.builder()
                        .withTransactionPerConnection(true).build(), () -> {
                            org.postgresql.xa.PGXADataSource dataSource = new org.postgresql.xa.PGXADataSource();
                            dataSource.setUrl(url);
                            dataSource.setUser("postgres");
                            return dataSource;
                        });
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }

    /** An event as a row of the benchmark's tables. */
    static final class EventStatement implements org.apache.flink.connector.jdbc.JdbcStatementBuilder<Event> {
        private static final long serialVersionUID = 1L;

        @Override
        public void accept(java.sql.PreparedStatement statement, Event event) throws java.sql.SQLException {
            statement.setString(1, event.id());
            statement.setString(2, event.key());
            statement.setLong(3, event.count());
            statement.setString(4, event.payload());
        }
    }

    /** The parent's handle on the child JVM that runs Flink's job. */
    static final class Child implements AutoCloseable {
        private final Process process;
        private final java.io.BufferedWriter requests;
        private final java.util.concurrent.BlockingQueue<String> answers = new java.util.concurrent.LinkedBlockingQueue<>();

        Child(String bootstrapServers, java.nio.file.Path checkpoints) throws Exception {
            List<String> command = new ArrayList<>();
            command.add(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
            for (String option : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (option.startsWith("-Xm") || option.startsWith("-XX:")) {
                    command.add(option); // the same heap and collector as the parent's Onceflow job
                }
            }
            command.add("-cp");
            command.add(classPath());
            command.add(FlinkKafkaJob.class.getName());
            command.add(bootstrapServers);
            command.add(checkpoints.toString());
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            requests = new java.io.BufferedWriter(new java.io.OutputStreamWriter(process.getOutputStream(),
                    StandardCharsets.UTF_8));
            Thread reader = new Thread(() -> {
                try (java.io.BufferedReader lines = new java.io.BufferedReader(new java.io.InputStreamReader(
                        process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                        if (line.startsWith(PREFIX)) {
                            answers.add(line.substring(PREFIX.length()));
                        } else {
                            System.err.println("[flink child] " + line);
                        }
                    }
                } catch (java.io.IOException e) {
                    // the child is gone; await() reports it
                }
            }, "flink-child-stdout");
            reader.setDaemon(true);
            reader.start();
            await("ready", java.time.Duration.ofMinutes(2));
        }

        /**
         * Runs the bounded job to its end, into a topic or, with a {@code jdbcUrl}, a table; the
         * durations (ms, sorted) of its completed checkpoints.
         */
        List<Long> runBounded(String input, String output, String jdbcUrl) throws Exception {
            send("run " + input + " " + output + " bounded" + (jdbcUrl == null ? "" : " " + jdbcUrl));
            await("submitted", java.time.Duration.ofMinutes(2));
            String finished = await("finished", java.time.Duration.ofMinutes(60));
            String list = finished.substring("finished".length()).trim();
            return list.isEmpty() ? List.of()
                    : java.util.Arrays.stream(list.split(",")).map(Long::valueOf).sorted().toList();
        }

        /** Submits the unbounded job; returns once Flink accepted it. */
        void startUnbounded(String input, String output, String jdbcUrl) throws Exception {
            send("run " + input + " " + output + " unbounded" + (jdbcUrl == null ? "" : " " + jdbcUrl));
            await("submitted", java.time.Duration.ofMinutes(2));
        }

        void cancel() throws Exception {
            send("cancel");
            await("cancelled", java.time.Duration.ofMinutes(2));
        }

        @Override
        public void close() throws Exception {
            try {
                send("quit");
            } catch (java.io.IOException gone) {
                // already exited
            }
            if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }

        private void send(String request) throws java.io.IOException {
            requests.write(request);
            requests.newLine();
            requests.flush();
        }

        private String await(String expected, java.time.Duration timeout) throws Exception {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                String answer = answers.poll(1, java.util.concurrent.TimeUnit.SECONDS);
                if (answer != null) {
                    if (answer.startsWith(expected)) {
                        return answer;
                    }
                    throw new IllegalStateException("the Flink child JVM answered '" + answer + "', expected '"
                            + expected + "'");
                }
                if (!process.isAlive() && answers.isEmpty()) {
                    throw new IllegalStateException("the Flink child JVM exited with status " + process.exitValue()
                            + " while the benchmark waited for '" + expected + "'; its log is above");
                }
            }
            process.destroyForcibly();
            throw new IllegalStateException("the Flink child JVM did not answer '" + expected + "' within " + timeout);
        }

        /**
         * This JVM's class path with every kafka-clients jar replaced by the one in
         * {@code lib-flink-kafka}, beside the {@code lib} directory the benchmark runs from.
         */
        private static String classPath() {
            List<String> entries = new ArrayList<>();
            java.nio.file.Path flinkLib = null;
            for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
                java.nio.file.Path path = java.nio.file.Path.of(entry);
                String name = path.getFileName() == null ? "" : path.getFileName().toString();
                if (name.startsWith("kafka-clients-") && name.endsWith(".jar")) {
                    java.nio.file.Path dir = path.toAbsolutePath().getParent();
                    flinkLib = dir.resolveSibling("lib-flink-kafka");
                } else {
                    entries.add(entry);
                }
            }
            java.io.File[] jars = flinkLib == null ? null
                    : flinkLib.toFile().listFiles((dir, name) -> name.startsWith("kafka-clients-"));
            if (jars == null || jars.length != 1) {
                throw new IllegalStateException("Flink's Kafka connector needs its own kafka-clients jar in "
                        + (flinkLib == null ? "target/lib-flink-kafka" : flinkLib)
                        + "; build the benchmarks with ./mvnw -B -pl benchmarks -am package and run them from "
                        + "benchmarks/target as README.md shows");
            }
            entries.add(jars[0].getPath());
            return String.join(java.io.File.pathSeparator, entries);
        }
    }

    /** An input record's value, an {@link EventFormat} line, as an event. */
    static final class EventDeserializer implements KafkaRecordDeserializationSchema<Event> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Event> out) {
            out.collect(EventFormat.parse(new String(record.value(), StandardCharsets.UTF_8)));
        }

        @Override
        public TypeInformation<Event> getProducedType() {
            return TypeInformation.of(Event.class);
        }
    }

    /** An event as the record Onceflow's Kafka sink writes: key = the event's key, value = its line. */
    static final class EventSerializer implements KafkaRecordSerializationSchema<Event> {
        private static final long serialVersionUID = 1L;
        private final String topic;

        EventSerializer(String topic) {
            this.topic = topic;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(Event event, KafkaSinkContext context, Long timestamp) {
            return new ProducerRecord<>(topic, event.key().getBytes(StandardCharsets.UTF_8),
                    EventFormat.toLine(event).getBytes(StandardCharsets.UTF_8));
        }
    }
}
