package dev.onceflow.connector.datagen;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.util.List;

/**
 * Computes the row of a sequence number for a declared schema, each field from its own
 * {@link FieldGenerator}. A pure function of the sequence number, the seed and the options, so a
 * replay after a restore emits exactly the same rows (SRC-1): field {@code i}'s random bits for
 * sequence number {@code s} are the {@code s}-th output of a SplitMix64 stream seeded by the seed
 * and {@code i}. Public for tests and harnesses that must know the rows a job makes.
 *
 * <p>Immutable and thread-safe.
 */
public final class RowGenerator {

    private final Schema schema;
    private final FieldGenerator[] fields;
    private final long[] fieldSeeds;

    private RowGenerator(Schema schema, List<FieldGenerator> fields, long seed) {
        this.schema = schema;
        this.fields = fields.toArray(FieldGenerator[]::new);
        this.fieldSeeds = new long[this.fields.length];
        for (int i = 0; i < fieldSeeds.length; i++) {
            // a field's stream depends on its position, so two fields of one type get different values
            fieldSeeds[i] = FieldGenerator.mix(seed ^ FieldGenerator.mix((i + 1) * FieldGenerator.GAMMA));
        }
    }

    /**
     * The generator of {@code schema}'s rows by the {@code fields.<name>.*} options in
     * {@code options}, validated against {@link DatagenSourceFactory#options(Schema)}.
     *
     * @throws OptionException with one line naming the field or option: a field of a type datagen
     *     does not make, settings that contradict each other
     */
    public static RowGenerator of(Schema schema, OptionValues options, long seed, String owner) {
        List<FieldGenerator> generators = new java.util.ArrayList<>();
        for (Field field : schema.fields()) {
            String unsupported = FieldOptions.unsupported(field.type());
            if (unsupported != null) {
                throw new OptionException(owner + ": field '" + field.name() + "' is " + unsupported + " ("
                        + field.type().withNullable(true) + "); datagen makes scalar fields and arrays of scalars");
            }
            generators.add(FieldOptions.of(field).generator(options, owner));
        }
        return new RowGenerator(schema, generators, seed);
    }

    public Schema schema() {
        return schema;
    }

    /**
     * How many rows there are: the fewest values of a sequence field, or {@link Long#MAX_VALUE}
     * when no sequence runs out.
     */
    public long length() {
        long length = Long.MAX_VALUE;
        for (FieldGenerator field : fields) {
            length = Math.min(length, field.length());
        }
        return length;
    }

    /** The sequence field that runs out first, if one runs out. */
    public java.util.Optional<String> shortestSequence() {
        int shortest = -1;
        for (int i = 0; i < fields.length; i++) {
            if (fields[i].length() < (shortest < 0 ? Long.MAX_VALUE : fields[shortest].length())) {
                shortest = i;
            }
        }
        return shortest < 0 ? java.util.Optional.empty() : java.util.Optional.of(schema.field(shortest).name());
    }

    /** The row of sequence number {@code sequence} ({@code 0 <= sequence < length()}). */
    public Row rowAt(long sequence) {
        Object[] values = new Object[fields.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = fields[i].value(sequence, FieldGenerator.mix(fieldSeeds[i] + (sequence + 1) * FieldGenerator.GAMMA));
        }
        return Row.of(schema, values);
    }
}
