package io.effonce.sink.store;

import io.effonce.sink.LocalDateTypeInfoFactory;
import java.time.LocalDate;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * The key of {@code merchant_daily_totals}. Its hash code is spelled out so the Flink key group of
 * a key never depends on how a JDK happens to combine a record's fields; its day has Flink's own
 * date serializer, never Kryo.
 *
 * <p>A job type in the sink's old package: this class's name is how every savepoint since 0.1.0
 * names the key serializer of the totals and the sink (a POJO serializer's snapshot restores by
 * class name), so it keeps the name it had when the sink owned it. The sink itself knows it only as
 * {@code K}; see sink/README.md, "The row mapping, and the two classes with the sink's name".
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
