package io.effonce.sink.store;

import io.effonce.sink.LocalDateTypeInfoFactory;
import java.time.LocalDate;
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

    /**
     * The job's key's hash, which places a key in its key group: reading the old state looks each
     * key up in the group it was written to.
     */
    @Override
    public int hashCode() {
        return 31 * (31 * merchantId.hashCode() + day.hashCode()) + currency.hashCode();
    }

    @Override
    public String toString() {
        return "old " + merchantId + "/" + day + "/" + currency;
    }
}
