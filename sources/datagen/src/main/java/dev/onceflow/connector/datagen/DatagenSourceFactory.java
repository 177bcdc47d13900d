package dev.onceflow.connector.datagen;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSource;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.record.EventRows;
import java.util.List;

/** Makes {@link DatagenSource} usable from job files as {@code datagen}. */
public final class DatagenSourceFactory implements SourceFactory {

    public static final Option<Long> ROWS = Option.longOption("rows").atLeast(1L)
            .description("Number of records to generate; omit for an unbounded source.");

    public static final Option<Integer> KEYS = Option.intOption("keys").defaultValue(10).atLeast(1)
            .description("Number of distinct keys; record s gets key \"key-\" + s % keys.");

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
            .description("Length in characters of each record's deterministic payload.");

    @Override
    public String identifier() {
        return "datagen";
    }

    @Override
    public String description() {
        return "Generates deterministic, replayable keyed events, bounded or unbounded, optionally rate-limited.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(ROWS, KEYS, ROWS_PER_SECOND, SPLITS, SPLIT_ASSIGNMENT, PAYLOAD_SIZE);
    }

    /** Rows of the event's fields, made as rows: the same values the events would give. */
    @Override
    public RowSource<?> createRowSource(Context context) {
        context.declaredSchema().ifPresent(schema -> {
            if (!schema.equals(EventRows.SCHEMA)) {
                throw new OptionException("source 'datagen' yields rows of " + EventRows.SCHEMA
                        + "; remove the job file's schema");
            }
        });
        return RowSource.ofRows(EventRows.SCHEMA, createSource(context.options()).asRows());
    }

    @Override
    public DatagenSource createSource(OptionValues options) {
        DatagenSource.Builder builder = DatagenSource.builder()
                .keys(options.get(KEYS))
                .rowsPerSecond(options.get(ROWS_PER_SECOND))
                .splits(options.get(SPLITS))
                .splitAssignment(options.get(SPLIT_ASSIGNMENT))
                .payloadSize(options.get(PAYLOAD_SIZE));
        options.getOptional(ROWS).ifPresent(builder::rows);
        return builder.build();
    }
}
