package dev.onceflow.conformance.format;

import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDateTime;
import org.junit.jupiter.api.Test;

class TextValuesTest {

    @Test
    void everyScalarOfTheTestRowsReadsBackFromItsText() {
        for (Row row : new Row[] {TestRows.full(1), TestRows.extremes(2)}) {
            for (int i = 0; i < row.arity(); i++) {
                DataType type = row.schema().field(i).type();
                if (!type.isNested()) {
                    Object value = TextValues.parse(type, TextValues.format(type, row.get(i)));
                    assertThat(Row.of(Schema.of(Field.of("v", type)), value))
                            .isEqualTo(Row.of(Schema.of(Field.of("v", type)), row.get(i)));
                }
            }
        }
    }

    @Test
    void decimalsKeepTheirScaleAndAreNeverRounded() {
        DataType money = DataType.decimal(6, 2);

        assertThat(TextValues.parse(money, "12.5")).isEqualTo(new BigDecimal("12.50"));
        assertThat(TextValues.format(money, new BigDecimal("1E+3").setScale(2))).isEqualTo("1000.00");
        assertThatThrownBy(() -> TextValues.parse(money, "0.125"))
                .hasMessage("0.125 has more than 2 digits after the point for decimal(6, 2)");
        assertThatThrownBy(() -> TextValues.parse(money, "12345"))
                .hasMessage("12345 has more than 6 digits for decimal(6, 2)");
    }

    @Test
    void aDecimalWithAHugeExponentIsRefusedAtOnceNeverExpanded() {
        DataType money = DataType.decimal(10, 2);

        assertThatThrownBy(() -> TextValues.parse(money, "1e-100000000"))
                .hasMessage("1E-100000000 has more than 2 digits after the point for decimal(10, 2)");
        assertThatThrownBy(() -> TextValues.parse(money, "1e100000000"))
                .hasMessage("1E+100000000 has more than 10 digits for decimal(10, 2)");
        assertThat(TextValues.parse(DataType.decimal(2, 2), "0")).isEqualTo(new BigDecimal("0.00"));
        assertThat(TextValues.parse(DataType.decimal(2, 2), "-0.5")).isEqualTo(new BigDecimal("-0.50"));
        assertThat(TextValues.parse(money, "12345678.90")).isEqualTo(new BigDecimal("12345678.90"));
        assertThatThrownBy(() -> TextValues.parse(money, "123456789.0")).hasMessageContaining("has more than 10 digits");
    }

    @Test
    void aFloatOrDoubleBeyondItsTypeIsRefusedNotMadeInfiniteOrZero() {
        assertThatThrownBy(() -> TextValues.parse(DataType.FLOAT, "1e39")).hasMessage("1e39 is out of range for a float");
        assertThatThrownBy(() -> TextValues.parse(DataType.FLOAT, "1e-50")).hasMessage("1e-50 is out of range for a float");
        assertThatThrownBy(() -> TextValues.parse(DataType.DOUBLE, "-1e400")).hasMessage("-1e400 is out of range for a double");
        assertThat(TextValues.parse(DataType.DOUBLE, "0.000e5")).isEqualTo(0.0);
        assertThat(TextValues.parse(DataType.FLOAT, "-Infinity")).isEqualTo(Float.NEGATIVE_INFINITY);
        assertThat(TextValues.parse(DataType.DOUBLE, "4.9E-324")).isEqualTo(Double.MIN_VALUE);
    }

    @Test
    void timestampsReadTheCommonSpellings() {
        assertThat(TextValues.parse(DataType.TIMESTAMP, "2026-12-06 10:00:01.5"))
                .isEqualTo(LocalDateTime.of(2026, 12, 6, 10, 0, 1, 500_000_000));
        assertThat(TextValues.parse(DataType.TIMESTAMP_TZ, "2026-12-06T11:00:00+01:00"))
                .isEqualTo(Instant.parse("2026-12-06T10:00:00Z"));
        assertThat(TextValues.format(DataType.TIMESTAMP_TZ, Instant.parse("2026-12-06T10:00:00Z")))
                .isEqualTo("2026-12-06T10:00:00Z");
    }

    /** The shortcut for the common form must read exactly what java.time reads, and leave the rest to it. */
    @Test
    void timestampsReadTheSameAsJavaTimeReadsThem() {
        java.util.Random random = new java.util.Random(42);
        for (int i = 0; i < 20_000; i++) {
            Instant instant = Instant.ofEpochSecond(random.nextLong(-62_135_596_800L, 253_402_300_799L),
                    random.nextInt(4) == 0 ? 0 : random.nextInt(1_000_000_000));
            String text = TextValues.format(DataType.TIMESTAMP_TZ, instant);
            assertThat(TextValues.parse(DataType.TIMESTAMP_TZ, text)).as(text).isEqualTo(instant)
                    .isEqualTo(java.time.OffsetDateTime.parse(text).toInstant());
            LocalDateTime local = LocalDateTime.ofEpochSecond(instant.getEpochSecond(), instant.getNano(),
                    java.time.ZoneOffset.UTC);
            String localText = TextValues.format(DataType.TIMESTAMP, local);
            assertThat(TextValues.parse(DataType.TIMESTAMP, localText)).as(localText).isEqualTo(local)
                    .isEqualTo(LocalDateTime.parse(localText));
        }
        for (String text : new String[] {"2026-12-06T10:00Z", "2026-12-06T10:00:00.1Z", "2026-12-06T10:00:00.123456789Z", "2026-12-06T10:00:00.Z",
                "+12026-12-06T10:00:00Z", "2026-12-06T10:00:00+01:00", "2026-12-06T10:00:00.000Z"}) {
            assertThat(TextValues.parse(DataType.TIMESTAMP_TZ, text)).as(text)
                    .isEqualTo(java.time.OffsetDateTime.parse(text).toInstant());
        }
        for (String text : new String[] {"2026-02-30T10:00:00Z", "2026-12-06T24:00:00Z", "2026-12-06T10:00:00.1234567891Z",
                "2026-12-06T10:0:00Z", "2026-12-06X10:00:00Z", "2026-12-06T10:00:00"}) {
            assertThatThrownBy(() -> TextValues.parse(DataType.TIMESTAMP_TZ, text)).as(text)
                    .hasMessage("'" + text + "' is not a timestamptz");
        }
        assertThatThrownBy(() -> TextValues.parse(DataType.TIMESTAMP, "2026-02-30 10:00"))
                .hasMessage("'2026-02-30 10:00' is not a timestamp");
    }

    @Test
    void badTextIsOneLineAndAbbreviated() {
        assertThatThrownBy(() -> TextValues.parse(DataType.INT.notNull(), "12x")).hasMessage("'12x' is not a int");
        assertThatThrownBy(() -> TextValues.parse(DataType.BOOLEAN, "yes"))
                .hasMessage("'yes' is not a boolean (true or false)");
        assertThatThrownBy(() -> TextValues.parse(DataType.DATE, "x".repeat(100)))
                .hasMessage("'" + "x".repeat(37) + "...' is not a date");
        assertThatThrownBy(() -> TextValues.parse(DataType.BYTES, "***"))
                .hasMessageStartingWith("'***' is not base64 bytes");
        assertThatThrownBy(() -> TextValues.parse(DataType.LONG, "1\n2")).hasMessage("'1\\n2' is not a long");
    }
}
