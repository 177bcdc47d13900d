package dev.onceflow.conformance.selftest;

import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.connector.filesystem.FileSystemSinkFactory;
import dev.onceflow.connector.filesystem.FileTransaction;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BiFunction;

/**
 * The filesystem sink with one defect, usable from job files under its own identifier, so the
 * suite's child JVMs (which run with the test classpath) find it as they find any connector. It
 * takes the real sink's options and wraps each of its writers.
 */
abstract class BrokenSinkFactory implements SinkFactory {

    private static final FileSystemSinkFactory REAL = new FileSystemSinkFactory();

    /**
     * The real writer of the subtask {@code context} describes, with this factory's defect;
     * {@code output} is the sink's local output directory.
     */
    protected abstract TransactionalWriter<Event, FileTransaction> breakWriter(
            TransactionalWriter<Event, FileTransaction> real, SinkContext context, Path output);

    /** The context the real writer is created with; the defect of some factories is in what it says. */
    protected SinkContext realContext(SinkContext context) {
        return context;
    }

    @Override
    public String description() {
        return "The filesystem sink, deliberately broken, for the conformance suite's own tests.";
    }

    @Override
    public List<Option<?>> options() {
        return REAL.options();
    }

    @Override
    public Sink<Event> createSink(OptionValues options) {
        Path output = localDirectory(options.get(FileSystemSinkFactory.PATH));
        return new BrokenSink((FileSystemSink) REAL.createSink(options), this::realContext,
                (writer, context) -> breakWriter(writer, context, output));
    }

    /** The local file of a part file path of a handle: fully qualified ({@code file:/...}), or a name in {@code output}. */
    static Path partFile(Path output, String path) {
        org.apache.hadoop.fs.Path qualified = new org.apache.hadoop.fs.Path(path);
        return qualified.toUri().getScheme() != null ? Path.of(qualified.toUri()) : output.resolve(path);
    }

    /** The local directory of the sink's {@code path} option (a path, or a {@code file:} URI), as the sink resolves it. */
    private static Path localDirectory(String path) {
        return Path.of(new org.apache.hadoop.fs.Path(path).toUri().getPath()).toAbsolutePath().normalize();
    }

    private record BrokenSink(FileSystemSink real, java.util.function.UnaryOperator<SinkContext> contextOfReal,
            BiFunction<TransactionalWriter<Event, FileTransaction>, SinkContext, TransactionalWriter<Event, FileTransaction>> breaker)
            implements TwoPhaseCommitSink<Event, FileTransaction> {

        @Override
        public TransactionalWriter<Event, FileTransaction> createWriter(SinkContext context) throws Exception {
            return breaker.apply(real.createWriter(contextOfReal.apply(context)), context);
        }

        @Override
        public SimpleVersionedSerializer<FileTransaction> transactionSerializer() {
            return real.transactionSerializer();
        }
    }
}
