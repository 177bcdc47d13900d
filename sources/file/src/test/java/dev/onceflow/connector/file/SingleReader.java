package dev.onceflow.connector.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import java.util.ArrayList;
import java.util.List;

/** One reader of a file source, subtask 0 of 1, driven by the test: splits are added by hand. */
final class SingleReader {

    private SingleReader() {
    }

    static <T> SourceReader<T, FileSplit> open(FileSource<T> source) {
        return source.createReader(new SourceReaderContext() {
            @Override
            public int subtaskIndex() {
                return 0;
            }

            @Override
            public int parallelism() {
                return 1;
            }

            @Override
            public void sendSplitRequest() {
                // splits are added by the test
            }
        });
    }

    /** Every record of {@code split}, read from its position to its end. */
    static <T> List<T> readToEnd(FileSource<T> source, FileSplit split) throws Exception {
        List<T> records = new ArrayList<>();
        try (SourceReader<T, FileSplit> reader = open(source)) {
            reader.addSplits(List.of(split));
            reader.notifyNoMoreSplits();
            for (int polls = 0; reader.pollNext(records::add) != InputStatus.END_OF_INPUT; polls++) {
                assertThat(polls).isLessThan(1_000);
            }
        }
        return records;
    }
}
