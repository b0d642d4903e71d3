package io.effonce.job;

import io.effonce.sink.LocalDateTypeInfoFactory;
import java.time.LocalDate;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * The key of {@code merchant_daily_totals}. Its hash code is spelled out so the Flink key group of
 * a key never depends on how a JDK happens to combine a record's fields; its day has Flink's own
 * date serializer, never Kryo.
 *
 * <p>Its name is part of the savepoint format (a POJO serializer's snapshot restores its class by
 * name): savepoints before 0.3.0 named it {@code io.effonce.sink.store.MerchantDayKey}, and the
 * savepoint migration renames them (job/README.md, "Upgrades"). The sink knows it only as {@code
 * K}.
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
