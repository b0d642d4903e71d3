package io.effonce.sink.store;

import io.effonce.sink.LocalDateTypeInfoFactory;
import java.time.LocalDate;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * The job's key before 0.3.0, under the name savepoints of 0.1.0 to 0.2.x give its POJO serializer
 * (a serializer snapshot restores its class by name, so reading such a savepoint needs this class).
 * Only the savepoint migration reads it, and converts it to {@code io.effonce.job.MerchantDayKey}
 * (the same fields, so the same bytes); the job's own jar does not carry it.
 */
public record MerchantDayKey(
        String merchantId,
        @TypeInfo(LocalDateTypeInfoFactory.class) LocalDate day,
        String currency) {

    public MerchantDayKey {
        Objects.requireNonNull(merchantId, "merchantId");
        Objects.requireNonNull(day, "day");
        Objects.requireNonNull(currency, "currency");
    }

    /** The same key group as the job's key: the hash code is spelled out in both. */
    @Override
    public int hashCode() {
        int h = merchantId.hashCode();
        h = 31 * h + day.hashCode();
        return 31 * h + currency.hashCode();
    }

    @Override
    public String toString() {
        return merchantId + "/" + day + "/" + currency;
    }
}
