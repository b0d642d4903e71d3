package io.effonce.job;

import io.effonce.job.decode.DeadLetter;
import io.effonce.job.decode.PaymentChange;
import io.effonce.sink.SinkChange;
import java.time.Duration;
import java.time.ZoneId;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.util.OutputTag;

/** The daily-totals operator exactly as the job builds it, for tests in other packages. */
public final class DailyTotalsAccess {

    private DailyTotalsAccess() {}

    public static OneInputStreamOperator<PaymentChange, SinkChange<MerchantDayKey, DailyTotal>>
            operator(ZoneId zone, long horizonMillis, OutputTag<DeadLetter> deadLetters) {
        return new KeepStateAtEndOfInput<>(
                new DailyTotals(
                        new DayFinality(zone, Duration.ofMillis(horizonMillis)), deadLetters));
    }
}
