package io.effonce.job.sidetables;

import io.effonce.dedup.LateCopy;
import io.effonce.job.decode.PaymentChange;

/**
 * A change deduplication rejected as later than the acceptance horizon; one row of {@code
 * late_events}, for a batch recount.
 *
 * @param watermark the live watermark it was judged against ({@code Long.MIN_VALUE} if none yet)
 * @param floor the restored watermark floor it was judged against
 */
public record LateEvent(PaymentChange change, long watermark, long floor) {

    public static LateEvent of(LateCopy<PaymentChange> copy) {
        return new LateEvent(copy.record(), copy.watermark(), copy.floor());
    }
}
