package dev.onceflow.connector.datagen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSource;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.source.Boundedness;
import dev.onceflow.spi.source.ReplayableSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** Discovery by name and option validation, as the CLI does it for a job file. */
class DatagenSourceFactoryTest {

    private static final String OWNER = "source 'datagen'";

    private final DatagenSourceFactory factory = new DatagenSourceFactory();

    @Test
    void isFoundByServiceLoaderUnderItsIdentifier() {
        assertThat(ServiceLoader.load(SourceFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.identifier().equals("datagen")).toList())
                .singleElement().isInstanceOf(DatagenSourceFactory.class);
    }

    @Test
    void declaresEveryOptionWithADescription() {
        assertThat(factory.options()).extracting(o -> o.key())
                .containsExactly("rows", "keys", "rows-per-second", "splits", "split-assignment", "payload-size", "first-id");
        assertThat(factory.options()).allSatisfy(o -> assertThat(o.description()).isNotBlank());
    }

    @Test
    void createsBoundedSourceWhenRowsIsSetAndUnboundedOtherwise() {
        ReplayableSource<?, ?, ?> bounded = factory.createSource(validate(Map.of("rows", "5", "splits", "2")));
        ReplayableSource<?, ?, ?> unbounded = factory.createSource(validate(Map.of()));

        assertThat(bounded.boundedness()).isEqualTo(Boundedness.BOUNDED);
        assertThat(unbounded.boundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
    }

    @Test
    void splitAssignmentOnDemandIsAcceptedForABoundedSourceOnly() throws Exception {
        ReplayableSource<?, ?, ?> onDemand = factory.createSource(
                validate(Map.of("rows", "5", "split-assignment", "on-demand")));
        TestEnumeratorContext<DatagenSplit> context = new TestEnumeratorContext<>(2);
        @SuppressWarnings("unchecked")
        var enumerator = ((ReplayableSource<?, DatagenSplit, DatagenEnumeratorState>) onDemand).createEnumerator(context);
        enumerator.addReader(0);

        // On demand, the first reader gets 2 of the 4 splits and the rest wait for requests.
        assertThat(enumerator.snapshotState(1).unassigned()).hasSize(2);
        assertThatThrownBy(() -> factory.createSource(validate(Map.of("split-assignment", "on-demand"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("split-assignment on-demand needs rows");
        assertThatThrownBy(() -> validate(Map.of("split-assignment", "whenever")))
                .isInstanceOf(OptionException.class)
                .hasMessageContaining("one of static, on-demand");
    }

    @Test
    void unknownOptionIsNamedWithTheAcceptedOnes() {
        assertThatThrownBy(() -> validate(Map.of("row", "5")))
                .isInstanceOf(OptionException.class)
                .hasMessage("source 'datagen': unknown option 'row'; accepted options: "
                        + "rows, keys, rows-per-second, splits, split-assignment, payload-size, first-id");
    }

    @Test
    void badNumberIsNamedWithWhatIsAccepted() {
        assertThatThrownBy(() -> validate(Map.of("rows", "many")))
                .isInstanceOf(OptionException.class)
                .hasMessage("source 'datagen': option 'rows' has value 'many'; expected a whole number >= 1");
        assertThatThrownBy(() -> validate(Map.of("keys", "0")))
                .isInstanceOf(OptionException.class)
                .hasMessage("source 'datagen': option 'keys' has value '0'; expected a whole number >= 1");
        assertThatThrownBy(() -> validate(Map.of("rows-per-second", "-1")))
                .isInstanceOf(OptionException.class).hasMessageContaining("'rows-per-second'");
    }

    @Test
    void builderRejectsValuesTheOptionsWouldReject() {
        assertThatThrownBy(() -> DatagenSource.builder().splits(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("splits must be >= 1, was 0");
    }

    private OptionValues validate(Map<String, String> raw) {
        return OptionValues.validate(OWNER, raw, factory.options());
    }

    private static final Schema ORDERS = Schema.of(List.of(
            Field.of("id", DataType.LONG),
            Field.of("customer", DataType.STRING),
            Field.of("amount", DataType.decimal(8, 2)),
            Field.of("paid", DataType.BOOLEAN)), List.of("id"));

    /** The row source a job file declaring {@code schema} with options {@code raw} gets, as the CLI makes it. */
    private RowSource<?> rowSource(Schema schema, Map<String, String> raw) {
        OptionValues options = OptionValues.validate(OWNER, raw, factory.options(schema));
        return factory.createRowSource(new SourceFactory.Context() {
            @Override
            public OptionValues options() {
                return options;
            }

            @Override
            public Optional<Schema> declaredSchema() {
                return Optional.of(schema);
            }

            @Override
            public Optional<Format> format() {
                return Optional.empty();
            }
        });
    }

    private String refusal(Schema schema, Map<String, String> raw) {
        OptionException e = catchThrowableOfType(OptionException.class, () -> rowSource(schema, raw));
        assertThat(e).as("refused").isNotNull();
        assertThat(e.getMessage()).as("one line").doesNotContain("\n").startsWith(OWNER + ": ");
        return e.getMessage().substring(OWNER.length() + 2);
    }

    @Test
    void aDeclaredSchemaGetsRowsOfItsOwnBoundedByRowsOrBySequencesThatRunOut() {
        RowSource<?> bounded = rowSource(ORDERS, Map.of("rows", "5"));
        RowSource<?> bySequence = rowSource(ORDERS, Map.of("fields.id.kind", "sequence", "fields.id.start", "1",
                "fields.id.end", "10"));
        RowSource<?> unbounded = rowSource(ORDERS, Map.of("fields.id.kind", "sequence"));

        assertThat(bounded.schema()).isEqualTo(ORDERS);
        assertThat(bounded.yieldsRows()).isTrue();
        assertThat(bounded.source().boundedness()).isEqualTo(Boundedness.BOUNDED);
        assertThat(bySequence.source().boundedness()).isEqualTo(Boundedness.BOUNDED);
        assertThat(unbounded.source().boundedness()).as("a long sequence never runs out")
                .isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
    }

    @Test
    void aMisspeltSettingOrAFieldThatIsNotInTheSchemaIsAnUnknownOption() {
        assertThat(refusal(ORDERS, Map.of("fields.id.knd", "sequence")))
                .startsWith("unknown option 'fields.id.knd'; accepted options: rows, rows-per-second, splits, "
                        + "split-assignment, seed, fields.id.kind, fields.id.start, fields.id.end, fields.id.min,");
        assertThat(refusal(ORDERS, Map.of("fields.client.length", "3"))).startsWith("unknown option 'fields.client.length'");
        assertThat(refusal(ORDERS, Map.of("fields.paid.min", "true"))).as("a boolean has no range")
                .startsWith("unknown option 'fields.paid.min'");
        assertThat(refusal(ORDERS, Map.of("keys", "3"))).as("keys are the events'").startsWith("unknown option 'keys'");
    }

    @Test
    void aValueOfTheWrongTypeOrSettingsThatContradictEachOtherAreRefusedNamingTheOption() {
        assertThat(refusal(ORDERS, Map.of("fields.amount.min", "1.234")))
                .isEqualTo("option 'fields.amount.min' has value '1.234'; expected a decimal(8, 2)");
        assertThat(refusal(ORDERS, Map.of("fields.amount.min", "10", "fields.amount.max", "9.99")))
                .isEqualTo("option 'fields.amount.min' (10.00) is more than 'fields.amount.max' (9.99)");
        assertThat(refusal(Schema.of(Field.of("score", DataType.DOUBLE)), Map.of("fields.score.min", "5")))
                .isEqualTo("option 'fields.score.min' (5.0) is more than 'fields.score.max' (1.0, its default)");
        assertThat(refusal(ORDERS, Map.of("fields.id.kind", "sequence", "fields.id.start", "5", "fields.id.end", "4")))
                .isEqualTo("option 'fields.id.start' (5) is more than 'fields.id.end' (4)");
        assertThat(refusal(ORDERS, Map.of("fields.id.kind", "sequence", "fields.id.max", "4")))
                .isEqualTo("option 'fields.id.max' applies to kind random, and field 'id' is a sequence");
        assertThat(refusal(ORDERS, Map.of("fields.id.start", "4")))
                .isEqualTo("option 'fields.id.start' applies to kind sequence; set fields.id.kind: sequence");
        assertThat(refusal(ORDERS, Map.of("fields.paid.kind", "sequence")))
                .isEqualTo("option 'fields.paid.kind' has value 'sequence', which is not available for a boolean "
                        + "field; expected random");
        assertThat(refusal(ORDERS, Map.of("fields.id.null-rate", "0.5")))
                .isEqualTo("option 'fields.id.null-rate' is 0.5, but field 'id' is not null");
        assertThat(refusal(ORDERS, Map.of("fields.customer.null-rate", "1.5")))
                .isEqualTo("option 'fields.customer.null-rate' has value '1.5'; expected a number from 0 to 1");
        assertThat(refusal(ORDERS, Map.of("fields.customer.values", "a,b", "fields.customer.length", "3")))
                .isEqualTo("option 'fields.customer.length' cannot go with fields.customer.values, which picks the "
                        + "values");
        assertThat(refusal(ORDERS, Map.of("rows", "11", "fields.id.kind", "sequence", "fields.id.start", "1",
                "fields.id.end", "10")))
                .isEqualTo("option 'rows' is 11, more than the 10 values of field 'id''s sequence; lower rows or "
                        + "widen fields.id.start and .end");
    }

    @Test
    void aTypeWithoutAGeneratorIsRefusedNamingTheField() {
        Schema withMap = Schema.of(Field.of("id", DataType.LONG),
                Field.of("attributes", DataType.map(DataType.STRING, DataType.LONG)));
        Schema withRows = Schema.of(Field.of("items", DataType.array(DataType.row(Field.of("sku", DataType.STRING)))));

        assertThat(refusal(withMap, Map.of("rows", "3")))
                .isEqualTo("field 'attributes' is a map (map<string, long>); datagen makes scalar fields and arrays of "
                        + "scalars");
        assertThat(refusal(withRows, Map.of()))
                .isEqualTo("field 'items' is an array of rows (array<row<sku string>>); datagen makes scalar fields and "
                        + "arrays of scalars");
    }

    @Test
    void withoutASchemaTheRowsAreTheEventsAsBefore() {
        RowSource<?> events = factory.createRowSource(new SourceFactory.Context() {
            @Override
            public OptionValues options() {
                return validate(Map.of("rows", "3"));
            }

            @Override
            public Optional<Schema> declaredSchema() {
                return Optional.empty();
            }

            @Override
            public Optional<Format> format() {
                return Optional.empty();
            }
        });

        assertThat(events.schema()).isEqualTo(EventRows.SCHEMA);
    }
}
