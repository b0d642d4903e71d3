package io.effonce.testing.oracle;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.Comparator;
import java.util.Objects;

/** The key of a daily total: a merchant's day in one currency. */
public record MerchantDay(String merchantId, LocalDate day, String currency)
        implements Comparable<MerchantDay> {

    private static final Comparator<MerchantDay> ORDER =
            Comparator.comparing(MerchantDay::merchantId)
                    .thenComparing(MerchantDay::day)
                    .thenComparing(MerchantDay::currency);

    public MerchantDay {
        Objects.requireNonNull(merchantId, "merchantId");
        Objects.requireNonNull(day, "day");
        Objects.requireNonNull(currency, "currency");
    }

    /**
     * The key in a row's first three columns: merchant id, day, currency (its padding stripped).
     */
    public static MerchantDay fromColumns(ResultSet rs) throws SQLException {
        return new MerchantDay(
                rs.getString(1), rs.getObject(2, LocalDate.class), rs.getString(3).strip());
    }

    @Override
    public int compareTo(MerchantDay other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return merchantId + " " + day + " " + currency;
    }
}
