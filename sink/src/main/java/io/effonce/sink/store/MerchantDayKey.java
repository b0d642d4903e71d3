package io.effonce.sink.store;

import java.time.LocalDate;
import java.util.Objects;

/**
 * The key of {@code merchant_daily_totals}. Its hash code is spelled out so the Flink key group of
 * a key never depends on how a JDK happens to combine a record's fields.
 */
public record MerchantDayKey(String merchantId, LocalDate day, String currency) {

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
