package dev.onceflow.connector.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.format.csv.CsvFormatFactory;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.AtLeastOnceSink;
import dev.onceflow.spi.sink.BestEffortSink;
import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** Job-file options: what each mode builds, and one-line errors for what does not fit. */
class KafkaSinkFactoryTest {

    private final KafkaSinkFactory factory = new KafkaSinkFactory();

    private Sink<?> create(Map<String, String> options) {
        Map<String, String> all = new HashMap<>(Map.of("bootstrap-servers", "127.0.0.1:9092", "topic", "out"));
        all.putAll(options);
        return factory.createSink(OptionValues.validate("sink 'kafka'", all, factory.options()));
    }

    @Test
    void theFactoryIsFoundByItsIdentifier() {
        assertThat(ServiceLoader.load(SinkFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.identifier().equals("kafka")).findFirst()).get().isInstanceOf(KafkaSinkFactory.class);
    }

    @Test
    void eachModeBuildsTheSinkContractThatGivesItsGuarantee() {
        assertThat(create(Map.of())).isInstanceOf(TwoPhaseCommitSink.class);
        assertThat(create(Map.of("mode", "write-ahead"))).isInstanceOf(GenericWriteAheadSink.class);
        // Kafka appends: a replayed record is a second record, so neither mode may claim IDEM-1.
        assertThat(create(Map.of("mode", "at-least-once"))).isInstanceOf(AtLeastOnceSink.class)
                .isNotInstanceOf(IdempotentSink.class);
        // None is never flushed at a barrier, so it cannot even promise ALO-1.
        assertThat(create(Map.of("mode", "none"))).isInstanceOf(BestEffortSink.class)
                .isNotInstanceOf(AtLeastOnceSink.class);
    }

    @Test
    void producerSettingsPassThroughButManagedOnesAreRefusedWithWhatToUseInstead() {
        assertThat(create(Map.of("properties.compression.type", "lz4", "properties.ssl.key.password", "s3cret"))
                .toString()).contains("compression.type=lz4").contains("ssl.key.password=[hidden]")
                .doesNotContain("s3cret");
        assertThatThrownBy(() -> create(Map.of("properties.transaction.timeout.ms", "1000")))
                .isInstanceOf(OptionException.class).hasMessageContaining("use the option 'transaction-timeout'");
        assertThatThrownBy(() -> create(Map.of("properties.enable.idempotence", "false")))
                .isInstanceOf(OptionException.class).hasMessageContaining("managed by the sink");
        assertThatThrownBy(() -> create(Map.of("properties.compresion.type", "lz4")))
                .isInstanceOf(OptionException.class).hasMessageContaining("properties.compresion.type");
    }

    /** FMT-6: a header is a file's first line; a Kafka record has none, so header: true is refused at load. */
    @Test
    void aFormatWithAFileHeaderIsRefusedInOneLine() {
        OptionValues options = OptionValues.validate("sink 'kafka'", Map.of("bootstrap-servers", "127.0.0.1:9092",
                "topic", "out"), factory.options());
        CsvFormatFactory csv = new CsvFormatFactory();
        Format headed = new Format(csv, OptionValues.validate("format 'csv'", Map.of("header", "true"), csv.options()));
        Schema input = Schema.of(Field.of("id", DataType.LONG.notNull()));

        assertThatThrownBy(() -> factory.createRowSink(new SinkFactory.Context() {
            @Override
            public OptionValues options() {
                return options;
            }

            @Override
            public Schema inputSchema() {
                return input;
            }

            @Override
            public Optional<Format> format() {
                return Optional.of(headed);
            }
        })).isInstanceOf(OptionException.class)
                .hasMessage("sink 'kafka': format 'csv' is set to write a header line at the start of each file, but "
                        + "Kafka records are not files and have none; remove the format's header option");
    }

    @Test
    void optionsThatDoNotFitTheModeAreRefused() {
        assertThatThrownBy(() -> create(Map.of("control-topic", "markers")))
                .isInstanceOf(OptionException.class).hasMessage("sink 'kafka': control-topic applies to mode write-ahead only");
        assertThatThrownBy(() -> create(Map.of("mode", "write-ahead", "control-topic", "out")))
                .isInstanceOf(OptionException.class).hasMessageContaining("control-topic must differ from topic 'out'");
        assertThatThrownBy(() -> create(Map.of("transaction-timeout", "100ms")))
                .isInstanceOf(OptionException.class).hasMessageContaining("transaction-timeout");
        assertThatThrownBy(() -> create(Map.of("transactional-id-prefix", "a b")))
                .isInstanceOf(OptionException.class).hasMessageContaining("transactional-id-prefix");
    }
}
