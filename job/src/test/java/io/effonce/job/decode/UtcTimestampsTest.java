package io.effonce.job.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The fast path must be Instant.parse, value for value and failure for failure. */
class UtcTimestampsTest {

    @Property(tries = 2_000)
    void readsEveryRelayTimestampAsInstantParseDoes(
            @ForAll("instants") Instant instant, @ForAll @IntRange(min = 0, max = 9) int digits) {
        String text = withFractionDigits(instant, digits);

        assertThat(UtcTimestamps.parse(text)).isEqualTo(Instant.parse(text));
    }

    @Property(tries = 3_000)
    void anyDamageFailsOrSucceedsExactlyAsInstantParse(
            @ForAll("instants") Instant instant,
            @ForAll @IntRange(min = 0, max = 9) int digits,
            @ForAll @IntRange(min = 0, max = 29) int position,
            @ForAll @CharRange(from = '+', to = '_') char replacement) {
        String valid = withFractionDigits(instant, digits);
        int at = position % valid.length();
        String text = valid.substring(0, at) + replacement + valid.substring(at + 1);

        Instant expected;
        try {
            expected = Instant.parse(text);
        } catch (DateTimeParseException e) {
            assertThatThrownBy(() -> UtcTimestamps.parse(text))
                    .isInstanceOf(DateTimeParseException.class);
            return;
        }
        assertThat(UtcTimestamps.parse(text)).isEqualTo(expected);
    }

    @Test
    void handsEveryOtherShapeToInstantParse() {
        for (String text :
                new String[] {
                    "2026-02-29T10:00:00Z", // no such day
                    "2026-11-30T24:00:00Z",
                    "2026-11-30T23:59:60Z",
                    "2026-11-30T15:20:01.Z",
                    "2026-11-30T15:20:01+01:00",
                    "0000-01-01T00:00:00Z",
                    "2026-11-30 15:20:01Z"
                }) {
            Instant expected;
            try {
                expected = Instant.parse(text);
            } catch (DateTimeParseException e) {
                assertThatThrownBy(() -> UtcTimestamps.parse(text))
                        .as(text)
                        .isInstanceOf(DateTimeParseException.class);
                continue;
            }
            assertThat(UtcTimestamps.parse(text)).as(text).isEqualTo(expected);
        }
        assertThat(UtcTimestamps.parse("1969-12-31T23:59:59.9995Z").toEpochMilli()).isEqualTo(-1);
    }

    @Provide
    Arbitrary<Instant> instants() {
        return Arbitraries.longs()
                .between(
                        ChangeDecoder.MIN_EVENT_TIME.getEpochSecond(),
                        ChangeDecoder.MAX_EVENT_TIME.getEpochSecond())
                .flatMap(
                        s ->
                                Arbitraries.integers()
                                        .between(0, 999_999_999)
                                        .map(n -> Instant.ofEpochSecond(s, n)));
    }

    /** ISO_INSTANT's form with exactly {@code digits} fraction digits (the rest cut off). */
    private static String withFractionDigits(Instant instant, int digits) {
        String seconds =
                DateTimeFormatter.ISO_INSTANT.format(
                        instant.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        String base = seconds.substring(0, seconds.length() - 1); // without Z
        if (digits == 0) {
            return base + "Z";
        }
        String nanos = String.format("%09d", instant.getNano());
        return base + "." + nanos.substring(0, digits) + "Z";
    }
}
