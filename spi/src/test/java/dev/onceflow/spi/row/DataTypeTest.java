package dev.onceflow.spi.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DataTypeTest {

    @ParameterizedTest
    @ValueSource(strings = {"boolean", "int", "long", "float", "double", "decimal(12, 2)", "string", "bytes",
            "date", "time", "timestamp", "timestamptz", "long not null", "array<string not null>",
            "map<string, array<decimal(38, 0)>> not null", "row<sku string not null, qty int>",
            "row<`order id` long, `a``b` row<x double>>", "array<row<a map<long, timestamptz not null>>>"})
    void everyTypeReadsBackFromWhatItWrites(String text) {
        DataType type = DataType.parse(text);

        assertThat(type.toString()).isEqualTo(text);
        assertThat(DataType.parse(type.toString())).isEqualTo(type);
    }

    @Test
    void aliasesAndCaseAreAccepted() {
        assertThat(DataType.parse("BIGINT NOT NULL")).isEqualTo(DataType.LONG.notNull());
        assertThat(DataType.parse("Integer")).isEqualTo(DataType.INT);
        assertThat(DataType.parse("text")).isEqualTo(DataType.STRING);
        assertThat(DataType.parse("bool")).isEqualTo(DataType.BOOLEAN);
        assertThat(DataType.parse("timestamp with time zone")).isEqualTo(DataType.TIMESTAMP_TZ);
        assertThat(DataType.parse("timestamp not null")).isEqualTo(DataType.TIMESTAMP.notNull());
        assertThat(DataType.parse(" decimal ( 5 ,0 ) ")).isEqualTo(DataType.decimal(5, 0));
    }

    @Test
    void mapKeysAreNeverNull() {
        assertThat(DataType.map(DataType.STRING, DataType.INT).keyType().nullable()).isFalse();
        assertThat(DataType.parse("map<string, int>")).isEqualTo(DataType.parse("map<string not null, int>"));
    }

    @Test
    void badTypesAreOneLineNamingThePositionAndWhatWasExpected() {
        assertThatThrownBy(() -> DataType.parse("decimal(12"))
                .hasMessage("type 'decimal(12': expected ',' at position 11");
        assertThatThrownBy(() -> DataType.parse("varchar(10)"))
                .hasMessageStartingWith("type 'varchar(10)': unknown type 'varchar'; known: boolean, int,")
                .hasMessageEndingWith("at position 1");
        assertThatThrownBy(() -> DataType.parse("decimal(40, 2)"))
                .hasMessage("type 'decimal(40, 2)': decimal precision 40 is not between 1 and 38 at position 1");
        assertThatThrownBy(() -> DataType.parse("array<int> nul"))
                .hasMessage("type 'array<int> nul': unexpected 'nul' after the type at position 12");
        assertThatThrownBy(() -> DataType.parse("long not nul"))
                .hasMessage("type 'long not nul': expected 'not null' at position 5");
        assertThatThrownBy(() -> DataType.parse("map<bytes, int>"))
                .hasMessageContaining("a map key cannot be of type bytes");
        assertThatThrownBy(() -> DataType.parse("row<a int, a long>"))
                .hasMessageContaining("field 'a' is declared twice");
        assertThatThrownBy(() -> DataType.parse(""))
                .hasMessage("type '': expected a type such as long, string, decimal(10, 2), array<int> at position 1");
        assertThatThrownBy(() -> DataType.parse("row<>")).hasMessageContaining("expected a field name");
    }

    @Test
    void parametersOfOtherKindsAreRefused() {
        assertThatThrownBy(DataType.LONG::elementType).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(DataType.LONG::schema).isInstanceOf(IllegalStateException.class);
        assertThat(DataType.LONG.precision()).isZero();
    }
}
