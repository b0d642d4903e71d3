package io.effonce.job.decode;

import io.effonce.job.MerchantDayKey;
import java.time.LocalDate;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * One decoded change of a payment row, with where it came from in Kafka.
 *
 * @param eventTimeMillis {@code after.updated_at}: the time of the last state change
 * @param day the event time's date in the job's zone
 */
@TypeInfo(PaymentChangeSerializer.Factory.class)
public record PaymentChange(
        String paymentId,
        String merchantId,
        long amount,
        String currency,
        String state,
        long eventTimeMillis,
        LocalDate day,
        String topic,
        int partition,
        long offset) {

    /** The derived event id: the same change always has the same id, however often it is sent. */
    public String eventId() {
        return paymentId + ":" + state;
    }

    public MerchantDayKey dayKey() {
        return new MerchantDayKey(merchantId, day, currency);
    }
}
