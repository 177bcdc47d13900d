package dev.onceflow.connector.datagen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.source.Boundedness;
import dev.onceflow.spi.source.ReplayableSource;
import java.util.Map;
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
                .containsExactly("rows", "keys", "rows-per-second", "splits", "split-assignment", "payload-size");
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
                        + "rows, keys, rows-per-second, splits, split-assignment, payload-size");
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
}
