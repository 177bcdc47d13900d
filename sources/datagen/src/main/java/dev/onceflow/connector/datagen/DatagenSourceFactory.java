package dev.onceflow.connector.datagen;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSource;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Makes {@link DatagenSource} usable from job files as {@code datagen}. */
public final class DatagenSourceFactory implements SourceFactory {

    public static final Option<Long> ROWS = Option.longOption("rows").atLeast(1L)
            .description("Number of records to generate; omit for an unbounded source (with a schema: "
                    + "one that ends when a sequence field runs out).");

    public static final Option<Integer> KEYS = Option.intOption("keys").defaultValue(10).atLeast(1)
            .description("Number of distinct keys; record s gets key \"key-\" + s % keys. Without a schema only.");

    public static final Option<Long> ROWS_PER_SECOND = Option.longOption("rows-per-second").defaultValue(0L)
            .atLeast(0L).description("Records per second across all readers; 0 means as fast as possible.");

    public static final Option<Integer> SPLITS = Option.intOption("splits").defaultValue(4).atLeast(1)
            .description("Number of strided splits: with static assignment, the most readers that can share the "
                    + "work; on demand, the stride of each chunk.");

    public static final Option<DatagenSource.SplitAssignment> SPLIT_ASSIGNMENT = Option
            .enumOption("split-assignment", DatagenSource.SplitAssignment.class)
            .defaultValue(DatagenSource.SplitAssignment.STATIC)
            .description("static: each reader keeps a fixed share of the splits; on-demand (needs rows): chunks "
                    + "handed out as readers ask, so readers that run at different speeds finish together.");

    public static final Option<Integer> PAYLOAD_SIZE = Option.intOption("payload-size").defaultValue(16).atLeast(0)
            .description("Length in characters of each record's deterministic payload. Without a schema only.");

    public static final Option<Long> FIRST_ID = Option.longOption("first-id").defaultValue(0L).atLeast(0L)
            .description("Id of the first record: record s gets id, key and payload of first-id + s. Without a "
                    + "schema only.");

    public static final Option<Long> SEED = Option.longOption("seed").defaultValue(0L)
            .description("With a schema only: the seed of the random values; the same seed makes the same rows.");

    private static final String OWNER = "source 'datagen'";

    @Override
    public String identifier() {
        return "datagen";
    }

    @Override
    public String description() {
        return "Generates deterministic, replayable keyed events, or rows of a declared schema, bounded or unbounded, "
                + "optionally rate-limited.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(ROWS, KEYS, ROWS_PER_SECOND, SPLITS, SPLIT_ASSIGNMENT, PAYLOAD_SIZE, FIRST_ID);
    }

    /**
     * With a declared schema, the options without those of events ({@code keys},
     * {@code payload-size}) and with {@code seed} and each field's {@code fields.<name>.*}: a
     * misspelt setting or a field that is not in the schema is an unknown option.
     */
    @Override
    public List<Option<?>> options(Schema declaredSchema) {
        List<Option<?>> options = new ArrayList<>(List.of(ROWS, ROWS_PER_SECOND, SPLITS, SPLIT_ASSIGNMENT, SEED));
        for (Field field : declaredSchema.fields()) {
            if (FieldOptions.unsupported(field.type()) == null) {
                options.addAll(FieldOptions.of(field).declared());
            }
        }
        return options;
    }

    /**
     * Every option as the docs list them: those without a schema, {@code seed}, and the settings
     * of a field called {@code <name>}.
     */
    public List<Option<?>> documentedOptions() {
        List<Option<?>> options = new ArrayList<>(options());
        options.add(SEED);
        options.addAll(FieldOptions.template());
        return options;
    }

    /**
     * Without a declared schema, the events' fields made as rows: the same values the events would
     * give. With one, rows of that schema from each field's generator.
     */
    @Override
    public RowSource<?> createRowSource(Context context) {
        if (context.declaredSchema().isEmpty()) {
            return RowSource.ofRows(EventRows.SCHEMA, createSource(context.options()).asRows());
        }
        Schema schema = context.declaredSchema().get();
        OptionValues options = context.options();
        RowGenerator generator = RowGenerator.of(schema, options, options.get(SEED), OWNER);
        DatagenSource.Builder builder = builder(options);
        long length = generator.length();
        Optional<Long> rows = options.getOptional(ROWS);
        if (rows.isPresent() && rows.get() > length) {
            String field = generator.shortestSequence().orElseThrow();
            throw new OptionException(OWNER + ": option 'rows' is " + rows.get() + ", more than the " + length
                    + " values of field '" + field + "''s sequence; lower rows or widen " + FieldOptions.PREFIX + field
                    + ".start and .end");
        }
        if (rows.isPresent()) {
            builder.rows(rows.get());
        } else if (length < Long.MAX_VALUE) {
            builder.rows(length); // a sequence that runs out ends the source
        }
        try {
            return RowSource.ofRows(schema, builder.build().asRows(generator));
        } catch (IllegalArgumentException e) {
            throw new OptionException(OWNER + ": " + e.getMessage());
        }
    }

    @Override
    public DatagenSource createSource(OptionValues options) {
        DatagenSource.Builder builder = builder(options)
                .keys(options.get(KEYS))
                .payloadSize(options.get(PAYLOAD_SIZE))
                .firstId(options.get(FIRST_ID));
        options.getOptional(ROWS).ifPresent(builder::rows);
        return builder.build();
    }

    /** A builder with the options events and rows of a schema share, but rows. */
    private static DatagenSource.Builder builder(OptionValues options) {
        return DatagenSource.builder()
                .rowsPerSecond(options.get(ROWS_PER_SECOND))
                .splits(options.get(SPLITS))
                .splitAssignment(options.get(SPLIT_ASSIGNMENT));
    }
}
