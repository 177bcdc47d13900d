package dev.onceflow.spi.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RowTest {

    private static final Schema ORDER = Schema.of(List.of(
            Field.of("id", DataType.LONG),
            Field.of("amount", DataType.decimal(6, 2)),
            Field.of("tags", DataType.array(DataType.STRING.notNull())),
            Field.of("blob", DataType.BYTES)), List.of("id"));

    @Test
    void valuesAreReadByPositionAndByName() {
        Row row = Row.of(ORDER, 7L, new BigDecimal("12.50"), List.of("a"), null);

        assertThat(row.get(0)).isEqualTo(7L);
        assertThat(row.get("amount")).isEqualTo(new BigDecimal("12.50"));
        assertThat(row.isNull(3)).isTrue();
        assertThat(row).hasToString("{id=7, amount=12.50, tags=[a], blob=null}");
        assertThatThrownBy(() -> row.get("price")).hasMessage("no field 'price'; fields: id, amount, tags, blob");
    }

    @Test
    void everyValueIsCheckedAgainstItsTypeNamingTheField() {
        assertThatThrownBy(() -> Row.of(ORDER, 7, null, null, null))
                .hasMessage("field 'id': a java.lang.Integer where long not null needs a java.lang.Long");
        assertThatThrownBy(() -> Row.of(ORDER, null, null, null, null))
                .hasMessage("field 'id': null in a field of type long not null");
        assertThatThrownBy(() -> Row.of(ORDER, 1L, new BigDecimal("12.5"), null, null))
                .hasMessage("field 'amount': decimal 12.5 has scale 1, decimal(6, 2) needs 2");
        assertThatThrownBy(() -> Row.of(ORDER, 1L, new BigDecimal("12345.00"), null, null))
                .hasMessage("field 'amount': decimal 12345.00 has 7 digits, more than decimal(6, 2) holds");
        assertThatThrownBy(() -> Row.of(ORDER, 1L, null, Arrays.asList("a", null), null))
                .hasMessage("field 'tags': element 1: null in a field of type string not null");
        assertThatThrownBy(() -> Row.of(ORDER, 1L, null))
                .hasMessageStartingWith("2 values for the 4 fields of row<id long not null");
        assertThatThrownBy(() -> Row.ofNamed(ORDER, Map.of("price", 1L))).hasMessageStartingWith("no field 'price'");
    }

    @Test
    void nestedRowsMustBeOfTheirFieldsSchema() {
        Schema inner = Schema.of(Field.of("x", DataType.INT));
        Schema outer = Schema.of(Field.of("in", DataType.row(inner)));

        assertThat(Row.of(outer, Row.of(inner, 1)).get(0)).isEqualTo(Row.of(inner, 1));
        assertThatThrownBy(() -> Row.of(outer, Row.of(Schema.of(Field.of("y", DataType.INT)), 1)))
                .hasMessageStartingWith("field 'in': a row of row<y int> where row<x int> needs one of");
    }

    @Test
    void arraysAreCopiedSoTheRowCannotChangeAfterwards() {
        List<String> tags = new ArrayList<>(List.of("a"));
        Row row = Row.of(ORDER, 1L, null, tags, null);
        tags.add("b");

        assertThat(row.get("tags")).isEqualTo(List.of("a"));
        assertThatThrownBy(() -> ((List<?>) row.get("tags")).clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void rowsWithEqualBytesAreEqualAlsoInsideArrays() {
        Schema schema = Schema.of(Field.of("b", DataType.BYTES), Field.of("bs", DataType.array(DataType.BYTES)));
        Row a = Row.of(schema, new byte[] {1, 2}, List.of(new byte[] {3}));
        Row b = Row.of(schema, new byte[] {1, 2}, List.of(new byte[] {3}));

        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(Row.of(schema, new byte[] {1, 2}, List.of(new byte[] {4})));
    }

    @Test
    void withReplacesOneCheckedValue() {
        Row row = Row.of(ORDER, 1L, null, null, null);

        assertThat(row.with(1, new BigDecimal("1.00")).get(1)).isEqualTo(new BigDecimal("1.00"));
        assertThat(row.get(1)).isNull();
        assertThatThrownBy(() -> row.with(0, null)).hasMessage("field 'id': null in a field of type long not null");
    }

    @Test
    void aRowIsAnInsertUnlessMadeAnotherKind() {
        Row insert = Row.of(ORDER, 7L, new BigDecimal("12.50"), List.of("a"), null);
        Row delete = insert.withKind(RowKind.DELETE);

        assertThat(insert.kind()).isEqualTo(RowKind.INSERT);
        assertThat(delete.kind()).isEqualTo(RowKind.DELETE);
        assertThat(delete).isNotEqualTo(insert).hasToString("-D{id=7, amount=12.50, tags=[a], blob=null}");
        assertThat(delete.with(1, null).kind()).as("with keeps the kind").isEqualTo(RowKind.DELETE);
        assertThat(delete.withKind(RowKind.INSERT)).isEqualTo(insert);
    }

    @Test
    void aChangeNeedsAPrimaryKey() {
        Schema keyless = Schema.of(List.of(Field.of("id", DataType.LONG)), List.of());
        Row row = Row.of(keyless, 1L);

        assertThatThrownBy(() -> row.withKind(RowKind.UPDATE_AFTER))
                .hasMessage("a UPDATE_AFTER row needs a primary key on its schema, and row<id long> has none");
        assertThat(row.withKind(RowKind.INSERT)).isSameAs(row);
    }

    @Test
    void kindBytesAreStable() {
        for (RowKind kind : RowKind.values()) {
            assertThat(RowKind.fromByteValue(kind.toByteValue())).isEqualTo(kind);
        }
        assertThat(RowKind.DELETE.toByteValue()).isEqualTo((byte) 3);
        assertThatThrownBy(() -> RowKind.fromByteValue((byte) 4)).hasMessage("no row kind has the byte 4");
    }
}
