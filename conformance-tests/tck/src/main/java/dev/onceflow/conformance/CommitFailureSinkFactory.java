package dev.onceflow.conformance;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSink;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.ForwardingTransactionalWriter;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The sink under test with the suite's {@link CommitFailures} around its commits, for the 2PC-3
 * cases: a job file names it instead of the sink, and the child JVM's {@value CommitFailures#PROPERTY}
 * names the sink and the failures. It takes the sink's options and format unchanged. A sink that
 * is not a two-phase commit sink is returned as it is: no failure is injected, and the case does
 * not apply. Armed only by the suite; without the property it refuses to create anything.
 */
public final class CommitFailureSinkFactory implements SinkFactory {

    public static final String IDENTIFIER = "conformance-commit-failures";

    /**
     * A factory of the suite's own tests whose sink injects {@link CommitFailures} itself (it models
     * an external system whose commits fail and a connector that mishandles that): not wrapped again.
     */
    public interface InjectsCommitFailures {
    }

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public String description() {
        return "The sink named by -D" + CommitFailures.PROPERTY + ", with commit failures injected by the conformance suite.";
    }

    @Override
    public List<Option<?>> options() {
        return wrapped().map(SinkFactory::options).orElse(List.of());
    }

    @Override
    public Optional<String> defaultFormat() {
        return wrapped().flatMap(SinkFactory::defaultFormat);
    }

    @Override
    public RowSink<?> createRowSink(Context context) {
        SinkFactory wrapped = armedFactory();
        return withFailures(wrapped, wrapped.createRowSink(context));
    }

    @Override
    public Sink<Event> createSink(OptionValues options) {
        SinkFactory wrapped = armedFactory();
        return withFailures(wrapped, wrapped.createSink(options));
    }

    private static <T> RowSink<T> withFailures(SinkFactory factory, RowSink<T> sink) {
        // The same conversion, so that a sink that writes rows itself is still seen as one.
        return new RowSink<>(withFailures(factory, sink.sink()), sink.fromRow());
    }

    private static <IN> Sink<IN> withFailures(SinkFactory factory, Sink<IN> sink) {
        if (factory instanceof InjectsCommitFailures || !(sink instanceof TwoPhaseCommitSink<IN, ?> twoPhase)) {
            return sink;
        }
        return failing(twoPhase);
    }

    private static <IN, TXN> Sink<IN> failing(TwoPhaseCommitSink<IN, TXN> sink) {
        return new TwoPhaseCommitSink<IN, TXN>() {
            @Override
            public TransactionalWriter<IN, TXN> createWriter(SinkContext context) throws Exception {
                return new ForwardingTransactionalWriter<>(sink.createWriter(context)) {
                    @Override
                    public void commit(TXN transaction) throws Exception {
                        CommitFailures.commit(transaction, () -> delegate().commit(transaction));
                    }

                    @Override
                    public void recoverAndCommit(TXN transaction) throws Exception {
                        CommitFailures.recoverAndCommit(transaction, () -> delegate().recoverAndCommit(transaction));
                    }
                };
            }

            @Override
            public SimpleVersionedSerializer<TXN> transactionSerializer() {
                return sink.transactionSerializer();
            }
        };
    }

    private static SinkFactory armedFactory() {
        return wrapped().orElseThrow(() -> new IllegalStateException("sink '" + IDENTIFIER
                + "' is armed by the conformance suite only: -D" + CommitFailures.PROPERTY + " is not set"));
    }

    private static Optional<SinkFactory> wrapped() {
        return CommitFailures.armed().map(failures -> ServiceLoader.load(SinkFactory.class).stream()
                .map(ServiceLoader.Provider::get).filter(f -> f.identifier().equals(failures.sink())).findFirst()
                .orElseThrow(() -> new IllegalStateException("no sink '" + failures.sink() + "' on the class path, named by -D"
                        + CommitFailures.PROPERTY)));
    }
}
