package dev.onceflow.connector.elasticsearch;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import java.util.List;
import java.util.Optional;

/**
 * Which fields of the input make a document's {@code _id}, its version and the {@code {key}} of
 * its index name, checked against the input schema when the job starts. Immutable; the sink's
 * writers share one.
 *
 * <ul>
 *   <li>{@code document-id: id}: the input's primary key; event-shaped input without one is keyed
 *       by {@code id}, as before rows. One key field's text is the {@code _id} as it is; the texts
 *       of a composite key are joined with {@code _}, each with {@code \} and {@code _} escaped by a
 *       {@code \}, so {@code (a, b_c)} and {@code (a_b, c)} give {@code a_b\_c} and {@code a\_b_c}.
 *   <li>{@code document-id: key}: the text of field {@code key}, versioned by field {@code count}.
 *   <li>{@code document-id: auto}: no id.
 * </ul>
 */
final class DocumentFields {

    private static final String OWNER = "sink 'elasticsearch'";

    private final DocumentId documentId;
    private final int[] idFields;
    private final int keyField;
    private final int versionField;

    private DocumentFields(DocumentId documentId, int[] idFields, int keyField, int versionField) {
        this.documentId = documentId;
        this.idFields = idFields;
        this.keyField = keyField;
        this.versionField = versionField;
    }

    /**
     * The fields of {@code schema} that {@code documentId} and {@code index} use.
     *
     * @throws OptionException naming the missing, nullable or mistyped field and the fix
     */
    static DocumentFields of(Schema schema, DocumentId documentId, IndexName index) {
        int[] idFields = new int[0];
        int keyField = -1;
        int versionField = -1;
        if (documentId == DocumentId.ID) {
            List<String> key = schema.primaryKey();
            if (key.isEmpty() && isEventShaped(schema)) {
                key = List.of("id");
            }
            if (key.isEmpty()) {
                throw new OptionException(OWNER + ": document-id: id makes each document's _id from the input's "
                        + "primary key, and the input (fields " + String.join(", ", schema.names()) + ") has none; "
                        + "declare primary-key in the schema, or use mode: write-ahead with document-id: auto "
                        + "(at-least-once)");
            }
            idFields = key.stream().mapToInt(schema::position).toArray();
        }
        if (documentId == DocumentId.KEY || index.usesKey()) {
            String why = documentId == DocumentId.KEY ? "document-id: key" : "option 'index' (" + index + ")";
            keyField = scalarNotNull(schema, "key", why + " takes the document's key from it");
        }
        if (documentId == DocumentId.KEY) {
            versionField = scalarNotNull(schema, "count", "document-id: key versions each document by it");
            DataType.Kind kind = schema.field(versionField).type().kind();
            if (kind != DataType.Kind.LONG && kind != DataType.Kind.INT) {
                throw new OptionException(OWNER + ": document-id: key versions each document by field 'count', which "
                        + "is a " + schema.field(versionField).type() + "; it must be a long or an int");
            }
        }
        return new DocumentFields(documentId, idFields, keyField, versionField);
    }

    private static boolean isEventShaped(Schema schema) {
        try {
            EventRows.fromSchema(schema, OWNER);
            return true;
        } catch (OptionException notEvents) {
            return false;
        }
    }

    private static int scalarNotNull(Schema schema, String name, String why) {
        Optional<Field> field = schema.field(name);
        if (field.isEmpty()) {
            throw new OptionException(OWNER + ": " + why + ", and the input has no field '" + name + "'; fields: "
                    + String.join(", ", schema.names()));
        }
        DataType type = field.get().type();
        if (type.isNested() || type.nullable()) {
            throw new OptionException(OWNER + ": " + why + ", and field '" + name + "' is a " + type
                    + "; it must be a scalar type declared not null");
        }
        return schema.position(name);
    }

    /** The {@code _id} of {@code row}'s document; {@code null} for {@code document-id: auto}. */
    String id(Row row) {
        return switch (documentId) {
            case ID -> idFields.length == 1 ? text(row, idFields[0]) : joinedKey(row);
            case KEY -> text(row, keyField);
            case AUTO -> null;
        };
    }

    private String joinedKey(Row row) {
        StringBuilder id = new StringBuilder();
        for (int i = 0; i < idFields.length; i++) {
            if (i > 0) {
                id.append('_');
            }
            String part = text(row, idFields[i]);
            for (int c = 0; c < part.length(); c++) {
                char ch = part.charAt(c);
                if (ch == '_' || ch == '\\') {
                    id.append('\\');
                }
                id.append(ch);
            }
        }
        return id.toString();
    }

    /** The version of {@code row}'s document under {@code document-id: key}. */
    long version(Row row) {
        return ((Number) row.get(versionField)).longValue();
    }

    /** The text of {@code row}'s {@code key} field, or {@code null} when nothing uses it. */
    String key(Row row) {
        return keyField < 0 ? null : text(row, keyField);
    }

    /** Key fields are not null: primary keys by ROW-3, the others checked in {@link #of}. */
    private static String text(Row row, int position) {
        return TextValues.format(row.schema().field(position).type(), row.get(position));
    }
}
