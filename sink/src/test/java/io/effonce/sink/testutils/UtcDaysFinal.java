package io.effonce.sink.testutils;

import io.effonce.sink.Progress;
import io.effonce.sink.ProgressRule;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * A progress rule as the ledger's job gives the sink (its {@code DayFinality}): a UTC day is final
 * two hours after it ends. The sink's tests check that it records what its rule says, not the rule.
 */
public final class UtcDaysFinal {

    public static final Duration HORIZON = Duration.ofHours(2);

    public static final ProgressRule RULE =
            watermark ->
                    new Progress(
                            watermark,
                            Instant.ofEpochMilli(watermark)
                                    .minus(HORIZON)
                                    .atZone(ZoneOffset.UTC)
                                    .toLocalDate()
                                    .minusDays(1),
                            "Z",
                            HORIZON);

    private UtcDaysFinal() {}
}
