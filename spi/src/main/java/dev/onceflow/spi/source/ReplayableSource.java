package dev.onceflow.spi.source;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;

/**
 * A source that can rewind: given a checkpointed position it emits again exactly the records after
 * it. It creates one {@link SplitEnumerator} per job and one {@link SourceReader} per parallel
 * subtask; the runtime checkpoints the enumerator's unassigned splits and each reader's splits
 * with their positions.
 *
 * <p>The source object itself is a description and a factory: it is created once per job from
 * options (or by user code), must be safe to call from several threads, and holds no
 * connections. Resources belong to the enumerator and the readers.
 *
 * @param <T> records emitted
 * @param <SplitT> the split type, carrying its position
 * @param <EnumStateT> the enumerator's checkpointed state
 */
public interface ReplayableSource<T, SplitT extends SourceSplit, EnumStateT> {

    /** Whether readers eventually reach {@link InputStatus#END_OF_INPUT}. */
    Boundedness boundedness();

    /** Creates the enumerator for a job that starts without restored state. */
    SplitEnumerator<SplitT, EnumStateT> createEnumerator(SplitEnumeratorContext<SplitT> context) throws Exception;

    /** Creates the enumerator from the state of a completed checkpoint. */
    SplitEnumerator<SplitT, EnumStateT> restoreEnumerator(SplitEnumeratorContext<SplitT> context, EnumStateT state)
            throws Exception;

    /** Creates the reader of one parallel subtask. Called on that subtask's task thread. */
    SourceReader<T, SplitT> createReader(SourceReaderContext context) throws Exception;

    /** Writes splits (with positions) into checkpoints. */
    SimpleVersionedSerializer<SplitT> splitSerializer();

    /** Writes the enumerator state into checkpoints. */
    SimpleVersionedSerializer<EnumStateT> enumeratorStateSerializer();
}
