package io.effonce.sink.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The statements the three totals tables share — live ({@code barrier_tag}), staged and committed
 * ({@code checkpoint_id}) — each a single statement over arrays ({@code unnest}), so a batch of any
 * size is one round trip. Table and column names come from validated configuration only.
 */
final class TotalsRows {

    private TotalsRows() {}

    /**
     * Upserts {@code rows} into {@code table}: each row's tag goes to {@code tagColumn}; {@code
     * conflict} is the table's primary key; {@code timeColumn}, if not null, gets now().
     */
    static int upsert(
            Connection c,
            String table,
            String tagColumn,
            String timeColumn,
            String conflict,
            List<StoredRow<MerchantDayKey, DailyTotal>> rows)
            throws SQLException {
        int n = rows.size();
        String[] merchants = new String[n];
        String[] days = new String[n];
        String[] currencies = new String[n];
        long[] totals = new long[n];
        long[] counts = new long[n];
        long[] tags = new long[n];
        int[] groups = new int[n];
        for (int i = 0; i < n; i++) {
            StoredRow<MerchantDayKey, DailyTotal> row = rows.get(i);
            merchants[i] = row.key().merchantId();
            days[i] = row.key().day().toString();
            currencies[i] = row.key().currency();
            totals[i] = row.value().totalMinor();
            counts[i] = row.value().payments();
            tags[i] = row.barrierTag();
            groups[i] = row.keyGroup();
        }
        String time = timeColumn == null ? "" : ", " + timeColumn;
        String timeValue = timeColumn == null ? "" : ", now()";
        String timeSet = timeColumn == null ? "" : ", " + timeColumn + " = now()";
        try (PreparedStatement s =
                c.prepareStatement(
                        "INSERT INTO "
                                + table
                                + " (merchant_id, day, currency, total_minor, payments, "
                                + tagColumn
                                + ", key_group"
                                + time
                                + ") SELECT m, d::date, cur, t, p, tag, g"
                                + timeValue
                                + " FROM unnest(?::text[], ?::text[], ?::text[],"
                                + " ?::bigint[], ?::bigint[], ?::bigint[], ?::int[])"
                                + " AS u(m, d, cur, t, p, tag, g)"
                                + " ON CONFLICT ("
                                + conflict
                                + ") DO UPDATE SET total_minor = EXCLUDED.total_minor,"
                                + " payments = EXCLUDED.payments, "
                                + tagColumn
                                + " = EXCLUDED."
                                + tagColumn
                                + ", key_group = EXCLUDED.key_group"
                                + timeSet)) {
            s.setArray(1, c.createArrayOf("text", merchants));
            s.setArray(2, c.createArrayOf("text", days));
            s.setArray(3, c.createArrayOf("text", currencies));
            s.setObject(4, totals);
            s.setObject(5, counts);
            s.setObject(6, tags);
            s.setObject(7, groups);
            return s.executeUpdate();
        }
    }

    /** Deletes these keys' rows from {@code table}, within {@code span}. */
    static int delete(
            Connection c, String table, Collection<MerchantDayKey> keys, KeyGroupSpan span)
            throws SQLException {
        int n = keys.size();
        String[] merchants = new String[n];
        String[] days = new String[n];
        String[] currencies = new String[n];
        int i = 0;
        for (MerchantDayKey key : keys) {
            merchants[i] = key.merchantId();
            days[i] = key.day().toString();
            currencies[i] = key.currency();
            i++;
        }
        try (PreparedStatement s =
                c.prepareStatement(
                        "DELETE FROM "
                                + table
                                + " t USING unnest(?::text[], ?::text[], ?::text[])"
                                + " AS u(m, d, cur) WHERE t.merchant_id = u.m"
                                + " AND t.day = u.d::date AND t.currency = u.cur"
                                + " AND t.key_group BETWEEN ? AND ?")) {
            s.setArray(1, c.createArrayOf("text", merchants));
            s.setArray(2, c.createArrayOf("text", days));
            s.setArray(3, c.createArrayOf("text", currencies));
            s.setInt(4, span.first());
            s.setInt(5, span.last());
            return s.executeUpdate();
        }
    }

    /**
     * The keys of {@code table} in {@code span} whose {@code tagColumn} is at least {@code from};
     * shaped for a ({@code tagColumn}, key_group) index: a range on its first column.
     */
    static List<MerchantDayKey> keysFrom(
            Connection c, String table, String tagColumn, long from, KeyGroupSpan span)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT merchant_id, day, currency FROM "
                                + table
                                + " WHERE "
                                + tagColumn
                                + " >= ? AND key_group BETWEEN ? AND ?")) {
            s.setLong(1, from);
            s.setInt(2, span.first());
            s.setInt(3, span.last());
            List<MerchantDayKey> keys = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    keys.add(
                            new MerchantDayKey(
                                    rs.getString(1),
                                    rs.getObject(2, LocalDate.class),
                                    rs.getString(3)));
                }
            }
            return keys;
        }
    }

    /** Deletes the rows of {@code table} in {@code span}{@code andWhere}; returns how many. */
    static int deleteInSpan(
            Connection c, String table, KeyGroupSpan span, String andWhere, long... params)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "DELETE FROM " + table + " WHERE key_group BETWEEN ? AND ?" + andWhere)) {
            s.setInt(1, span.first());
            s.setInt(2, span.last());
            for (int i = 0; i < params.length; i++) {
                s.setLong(3 + i, params[i]);
            }
            return s.executeUpdate();
        }
    }
}
