package dev.onceflow.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Key groups are what makes a savepoint restorable at another parallelism: their ranges must tile exactly. */
class KeyGroupsTest {

    static Stream<Arguments> parallelisms() {
        return Stream.of(
                Arguments.of(128, 1), Arguments.of(128, 2), Arguments.of(128, 3), Arguments.of(128, 5),
                Arguments.of(128, 7), Arguments.of(128, 127), Arguments.of(128, 128),
                Arguments.of(10, 3), Arguments.of(10, 4), Arguments.of(10, 10), Arguments.of(1, 1),
                Arguments.of(32768, 7));
    }

    @ParameterizedTest(name = "maxParallelism={0}, parallelism={1}")
    @MethodSource("parallelisms")
    void rangesPartitionAllKeyGroupsWithoutGapOrOverlap(int maxParallelism, int parallelism) {
        assertThat(KeyGroups.firstGroup(0, maxParallelism, parallelism)).isZero();
        assertThat(KeyGroups.endGroup(parallelism - 1, maxParallelism, parallelism)).isEqualTo(maxParallelism);
        for (int subtask = 0; subtask < parallelism; subtask++) {
            int first = KeyGroups.firstGroup(subtask, maxParallelism, parallelism);
            int end = KeyGroups.endGroup(subtask, maxParallelism, parallelism);
            assertThat(end).as("subtask %d owns at least one key group", subtask).isGreaterThan(first);
            if (subtask + 1 < parallelism) {
                assertThat(KeyGroups.firstGroup(subtask + 1, maxParallelism, parallelism))
                        .as("subtask %d starts where subtask %d ends", subtask + 1, subtask).isEqualTo(end);
            }
        }
        int[] owners = new int[maxParallelism];
        for (int subtask = 0; subtask < parallelism; subtask++) {
            for (int group = KeyGroups.firstGroup(subtask, maxParallelism, parallelism);
                    group < KeyGroups.endGroup(subtask, maxParallelism, parallelism); group++) {
                owners[group]++;
            }
        }
        assertThat(owners).as("every key group is owned exactly once").containsOnly(1);
    }

    @ParameterizedTest(name = "maxParallelism={0}, parallelism={1}")
    @MethodSource("parallelisms")
    void subtaskOfAgreesWithTheRangeThatHoldsTheGroup(int maxParallelism, int parallelism) {
        for (int group = 0; group < maxParallelism; group++) {
            int subtask = KeyGroups.subtaskOf(group, maxParallelism, parallelism);
            assertThat(subtask).isBetween(0, parallelism - 1);
            assertThat(group)
                    .as("group %d routed to subtask %d", group, subtask)
                    .isGreaterThanOrEqualTo(KeyGroups.firstGroup(subtask, maxParallelism, parallelism))
                    .isLessThan(KeyGroups.endGroup(subtask, maxParallelism, parallelism));
        }
    }

    @Test
    void keyGroupOfIsStableAndInRange() {
        IntStream.range(0, 10_000).forEach(i -> {
            String key = "key-" + i;
            int group = KeyGroups.keyGroupOf(key, 128);
            assertThat(group).isBetween(0, 127).isEqualTo(KeyGroups.keyGroupOf(new String(key), 128));
            assertThat(KeyGroups.keyGroupOf((long) i, 128)).isBetween(0, 127);
        });
    }

    @Test
    void smallIntegerKeysSpreadOverManyGroups() {
        long distinct = IntStream.range(0, 1000).map(i -> KeyGroups.keyGroupOf(i, 128)).distinct().count();
        assertThat(distinct).as("groups used by keys 0..999").isGreaterThan(120);
    }
}
