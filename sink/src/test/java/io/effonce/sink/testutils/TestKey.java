package io.effonce.sink.testutils;

import io.effonce.sink.LocalDateTypeInfoFactory;
import java.time.LocalDate;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * The sink tests' key: a row of the deployed totals table (deploy/sql/sink.sql), as the job's own
 * key is. The sink knows it only as {@code K}; {@link TestRows} maps it to columns.
 */
public record TestKey(
        String merchantId,
        @TypeInfo(LocalDateTypeInfoFactory.class) LocalDate day,
        String currency) {

    public TestKey {
        Objects.requireNonNull(merchantId, "merchantId");
        Objects.requireNonNull(day, "day");
        Objects.requireNonNull(currency, "currency");
    }

    @Override
    public String toString() {
        return merchantId + "/" + day + "/" + currency;
    }
}
