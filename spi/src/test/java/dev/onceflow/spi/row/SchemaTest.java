package dev.onceflow.spi.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class SchemaTest {

    private static final Field ID = Field.of("id", DataType.LONG);
    private static final Field NAME = Field.of("name", DataType.STRING);

    @Test
    void fieldsAreFoundByNameAndPosition() {
        Schema schema = Schema.of(ID, NAME);

        assertThat(schema.position("name")).isEqualTo(1);
        assertThat(schema.indexOf("missing")).isEqualTo(-1);
        assertThat(schema.field("id")).contains(ID);
        assertThat(schema.names()).containsExactly("id", "name");
        assertThatThrownBy(() -> schema.position("Name")).hasMessage("no field 'Name'; fields: id, name");
    }

    @Test
    void primaryKeyFieldsBecomeNotNull() {
        Schema schema = Schema.of(ID, NAME).withPrimaryKey("id");

        assertThat(schema.field(0).type()).isEqualTo(DataType.LONG.notNull());
        assertThat(schema.primaryKeyPositions()).containsExactly(0);
        assertThat(schema).hasToString("row<id long not null, name string> primary key (id)");
        assertThat(schema).isNotEqualTo(Schema.of(ID, NAME));
    }

    @Test
    void badSchemasAreRefusedNamingTheField() {
        assertThatThrownBy(() -> Schema.of(ID, ID)).hasMessage("field 'id' is declared twice");
        assertThatThrownBy(() -> Schema.of(ID, NAME).withPrimaryKey("key"))
                .hasMessage("primary key field 'key' is not a field; fields: id, name");
        assertThatThrownBy(() -> Schema.of(ID, NAME).withPrimaryKey("id", "id"))
                .hasMessage("primary key field 'id' is named twice");
        assertThatThrownBy(() -> Schema.of(List.of(Field.of("tags", DataType.array(DataType.STRING))), List.of("tags")))
                .hasMessage("primary key field 'tags' is a array; a key is made of scalar fields");
        assertThatThrownBy(() -> Schema.of(List.of(), List.of())).hasMessage("a schema needs at least one field");
        assertThatThrownBy(() -> DataType.row(Schema.of(ID).withPrimaryKey("id")))
                .hasMessageStartingWith("a nested row cannot have a primary key");
        assertThatThrownBy(() -> Field.of("", DataType.LONG)).hasMessage("a field name cannot be empty");
    }
}
