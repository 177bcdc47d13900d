package dev.onceflow.spi.factory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class OptionTest {

    @Test
    void durationsParseWithEveryUnit() {
        assertThat(Option.parseDuration("250")).isEqualTo(Duration.ofMillis(250));
        assertThat(Option.parseDuration("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(Option.parseDuration(" 10s ")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Option.parseDuration("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(Option.parseDuration("5min")).isEqualTo(Duration.ofMinutes(5));
        assertThat(Option.parseDuration("1H")).isEqualTo(Duration.ofHours(1));
        assertThat(Option.parseDuration("2d")).isEqualTo(Duration.ofDays(2));
    }

    /** The longest duration is the longest whose milliseconds fit in a long: timers count in them. */
    @Test
    void theLongestDurationIsAcceptedAndOneDayMoreIsNot() {
        assertThat(Option.parseDuration("106751991167d")).isEqualTo(Option.MAX_DURATION);
        assertThat(Option.MAX_DURATION.toMillis()).isLessThanOrEqualTo(Long.MAX_VALUE);

        assertThatThrownBy(() -> Option.parseDuration("106751991168d")).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("'106751991168d' is longer than the longest duration accepted, 106751991167d");
    }

    /** A parser's own exception is never shown: the message names the option, the value and what is accepted. */
    @Test
    void anOptionReadByItsOwnParserNamesWhatItAccepts() {
        Option<Double> rate = Option.parsedBy("null-rate", "double", Double::valueOf, "a number from 0 to 1")
                .validate(r -> r >= 0 && r <= 1, "a number from 0 to 1");

        assertThat(rate.parse("source 'x'", " 0.25 ")).isEqualTo(0.25);
        assertThat(rate.typeName()).isEqualTo("double");
        assertThatThrownBy(() -> rate.parse("source 'x'", "lots")).isInstanceOf(OptionException.class)
                .hasMessage("source 'x': option 'null-rate' has value 'lots'; expected a number from 0 to 1");
        assertThatThrownBy(() -> rate.parse("source 'x'", "2")).isInstanceOf(OptionException.class)
                .hasMessage("source 'x': option 'null-rate' has value '2'; expected a number from 0 to 1");
    }

    /** These overflowed into an ArithmeticException (or a NumberFormatException that said nothing useful). */
    @Test
    void aDurationThatOverflowsIsRefusedInWords() {
        for (String text : new String[] {"99999999999999999h", "9999999999999999s", "99999999999999999999", "9223372036854775807d"}) {
            assertThatThrownBy(() -> Option.parseDuration(text)).as(text).isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'" + text + "' is longer than the longest duration accepted, 106751991167d");
        }
    }

    @Test
    void textThatIsNoDurationSaysWhatIsAccepted() {
        for (String text : new String[] {"", "soon", "-5s", "5 parsecs", "1.5s", "s"}) {
            assertThatThrownBy(() -> Option.parseDuration(text)).as(text).isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'" + text + "' is not a duration such as 500ms, 10s, 5m");
        }
    }

    @Test
    void aConnectorsDurationOptionThatOverflowsIsAnOptionError() {
        Option<Duration> timeout = Option.durationOption("timeout");

        assertThatThrownBy(() -> timeout.parse("sink 'x'", "99999999999999999h")).isInstanceOf(OptionException.class)
                .hasMessage("sink 'x': option 'timeout' has value '99999999999999999h'; expected a duration such as 500ms, 10s, 5m");
    }

    @Test
    void aCheckSaysWhichPartOfTheValueIsWrong() {
        Option<String> dir = Option.stringOption("dir").check(v -> v.endsWith("/") ? "ends with '/'" : null, "a directory");

        assertThat(dir.parse("sink 'x'", "/out")).isEqualTo("/out");
        assertThatThrownBy(() -> dir.parse("sink 'x'", "/out/")).isInstanceOf(OptionException.class)
                .hasMessage("sink 'x': option 'dir' has value '/out/', which ends with '/'; expected a directory");
    }

    /** A URL may hold a password: the message says what is wrong and leaves the value out. */
    @Test
    void aHiddenOptionsValueIsNeverInItsMessages() {
        Option<String> url = Option.stringOption("url").hiddenInMessages()
                .check(v -> v.startsWith("jdbc:") ? null : "does not start with 'jdbc:'", "a JDBC URL");
        Option<Long> secretNumber = Option.longOption("pin").hiddenInMessages().atLeast(1000L);

        assertThat(url.isHiddenInMessages()).isTrue();
        assertThatThrownBy(() -> url.parse("sink 'x'", "postgresql://db/app?password=hunter2"))
                .hasMessage("sink 'x': option 'url' does not start with 'jdbc:'; expected a JDBC URL"
                        + " (the value is not shown: it may hold a password)");
        assertThatThrownBy(() -> secretNumber.parse("sink 'x'", "12"))
                .hasMessage("sink 'x': option 'pin' has a value that is not accepted; expected a whole number >= 1000"
                        + " (the value is not shown: it may hold a password)");
        assertThatThrownBy(() -> secretNumber.parse("sink 'x'", "hunter2")).message().doesNotContain("hunter2");
    }
}
