package dev.onceflow.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.api.TimerService;
import dev.onceflow.runtime.state.AggregatingState;
import dev.onceflow.runtime.state.HeapKeyedStateBackend;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.MapState;
import dev.onceflow.runtime.state.ReducingState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowKind;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.serialization.Serializers;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The running aggregate over a changelog (CHG-6), driven row by row on real heap keyed state: it
 * takes deleted and updated rows back out of its key's count and sum and emits an upsert stream
 * keyed by the group key. When a case fails, look at {@code AggregateStep.Retracting} and
 * {@code Plan.retract}.
 */
class AggregateStepTest {

    private static final Schema ORDERS = Schema.of(List.of(
            Field.of("id", DataType.LONG),
            Field.of("customer", DataType.STRING),
            Field.of("amount", DataType.LONG)), List.of("id"));

    private static final Map<String, String> OPTIONS = options("key", "customer", "n", "count()", "total",
            "sum(amount)");

    @Test
    void required_chg6_deletesAndUpdatesAreTakenBackAndTheOutputIsAnUpsertStreamByKey() throws Exception {
        AggregateStep.Plan plan = AggregateStep.Plan.of(ORDERS, OPTIONS, false, true, "steps[0] 'aggregate'");
        Schema out = plan.output();
        assertThat(out.names()).containsExactly("customer", "n", "total");
        assertThat(out.primaryKey()).containsExactly("customer");

        List<Row> emitted = run(plan,
                order(RowKind.INSERT, 1, "a", 10),
                order(RowKind.INSERT, 2, "a", 5),
                order(RowKind.INSERT, 3, "b", 7),
                order(RowKind.UPDATE_BEFORE, 1, "a", 10),
                order(RowKind.UPDATE_AFTER, 1, "a", 4),
                order(RowKind.DELETE, 2, "a", 5),
                order(RowKind.DELETE, 3, "b", 7),
                order(RowKind.DELETE, 99, "c", 1), // a key with no rows: nothing to take back
                order(RowKind.INSERT, 4, "b", 1));

        assertThat(emitted).containsExactly(
                Row.of(out, "a", 1L, 10L),
                Row.of(out, "a", 2L, 15L).withKind(RowKind.UPDATE_AFTER),
                Row.of(out, "b", 1L, 7L),
                Row.of(out, "a", 1L, 5L).withKind(RowKind.UPDATE_AFTER),
                Row.of(out, "a", 2L, 9L).withKind(RowKind.UPDATE_AFTER),
                Row.of(out, "a", 1L, 4L).withKind(RowKind.UPDATE_AFTER),
                Row.of(out, "b", 1L, 7L).withKind(RowKind.DELETE),
                Row.of(out, "b", 1L, 1L));
    }

    @Test
    void required_chg6_minAndMaxCannotRetractAndAreRefusedOverAChangelog() {
        assertThatThrownBy(() -> AggregateStep.Plan.of(ORDERS, options("key", "customer", "low", "min(amount)"), false,
                true, "steps[0] 'aggregate'"))
                .hasMessage("steps[0] 'aggregate' option 'low': min cannot take back a deleted or updated row of a "
                        + "changelog; use count() and sum, or aggregate an append-only stream");
        assertThat(AggregateStep.Plan.of(ORDERS, options("key", "customer", "low", "min(amount)"), false, false,
                "steps[0] 'aggregate'").output().names()).as("append-only input keeps min")
                .containsExactly("id", "customer", "amount", "low");
    }

    private static Row order(RowKind kind, long id, String customer, long amount) {
        return Row.of(ORDERS, id, customer, amount).withKind(kind);
    }

    private static Map<String, String> options(String... keysAndValues) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            options.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return options;
    }

    /** Each row through the plan's function, on its key's state, as the keyed operator does. */
    private static List<Row> run(AggregateStep.Plan plan, Row... rows) throws Exception {
        HeapKeyedStateBackend<String> backend = new HeapKeyedStateBackend<>(Serializers.STRING, 128, 0, 1);
        KeyedProcessFunction<String, Row, Row> function = plan.function();
        function.open(new KeyedProcessFunction.KeyedContext() {
            @Override
            public int subtaskIndex() {
                return 0;
            }

            @Override
            public <T> ValueState<T> getState(StateDescriptor.Value<T> descriptor) {
                return backend.state(descriptor);
            }

            @Override
            public <T> ListState<T> getState(StateDescriptor.List<T> descriptor) {
                return backend.state(descriptor);
            }

            @Override
            public <UK, UV> MapState<UK, UV> getState(StateDescriptor.Map<UK, UV> descriptor) {
                return backend.state(descriptor);
            }

            @Override
            public <T> ReducingState<T> getState(StateDescriptor.Reducing<T> descriptor) {
                return backend.state(descriptor);
            }

            @Override
            public <IN2, ACC, OUT2> AggregatingState<IN2, OUT2> getState(
                    StateDescriptor.Aggregating<IN2, ACC, OUT2> descriptor) {
                return backend.state(descriptor);
            }
        });
        List<Row> emitted = new ArrayList<>();
        for (Row row : rows) {
            String key = plan.keyOf(row);
            backend.setCurrentKey(key);
            function.processElement(row, new KeyedProcessFunction.Context<>() {
                @Override
                public String currentKey() {
                    return key;
                }

                @Override
                public long timestamp() {
                    return Long.MIN_VALUE;
                }

                @Override
                public TimerService timerService() {
                    throw new UnsupportedOperationException("the running aggregate sets no timers");
                }

                @Override
                public void countLateRecord() {
                    throw new UnsupportedOperationException("the running aggregate has no late rows");
                }
            }, emitted::add);
        }
        return emitted;
    }
}
