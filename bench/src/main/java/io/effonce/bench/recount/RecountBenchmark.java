package io.effonce.bench.recount;

import io.effonce.feed.recount.LedgerRecount;
import io.effonce.feed.recount.RecountedDay;
import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How long the recount of one day takes: a ledger of {@code days} days of {@code perDay} SUCCEEDED
 * payments each (10,000 merchants, three currencies), the stream's committed totals of the middle
 * day missing its 1,000 late originals, those and 1,000 late re-deliveries in late_events. Prints
 * each run and the median. Not a test: feed/README.md gives the command and the figures.
 *
 * <p>Arguments: payments per day (default 200000), days in the ledger (default 7), runs (5).
 */
public final class RecountBenchmark {

    public static void main(String[] args) throws SQLException {
        int perDay = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int days = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        LocalDate first = LocalDate.parse("2026-03-01");
        LocalDate day = first.plusDays(days / 2);
        try (EmbeddedPostgres postgres = EmbeddedPostgres.start()) {
            PostgresEndpoint db = postgres.endpoint();
            SchemaTool.applyAll(db);
            long load = System.nanoTime();
            try (Connection c = db.connect();
                    Statement s = c.createStatement()) {
                s.execute(
                        ("INSERT INTO payments (payment_id, caller_id, client_key, merchant_id,"
                                        + " fingerprint, amount, currency, state, updated_at)"
                                        + " SELECT 'p' || i, 'c', 'k' || i, 'm' || (i %% 10000), 'f',"
                                        + " 100 + i %% 9900, (ARRAY['EUR','USD','GBP'])[1 + i %% 3],"
                                        + " 'SUCCEEDED', timestamptz '%s' + (i * interval '86400 s')"
                                        + " / %d FROM generate_series(0, %d) AS i")
                                .formatted(
                                        first.atStartOfDay(ZoneOffset.UTC),
                                        perDay,
                                        (long) perDay * days - 1));
                String dayStart = day.atStartOfDay(ZoneOffset.UTC).toString();
                String dayEnd = day.plusDays(1).atStartOfDay(ZoneOffset.UTC).toString();
                String ofDay =
                        " FROM payments WHERE updated_at >= '%s' AND updated_at < '%s'"
                                .formatted(dayStart, dayEnd);
                // Late originals: the first 1,000 payments of the day; re-deliveries: the next.
                s.execute(
                        "CREATE TEMP TABLE late_original AS SELECT payment_id"
                                + ofDay
                                + " ORDER BY updated_at LIMIT 1000");
                s.execute(
                        "INSERT INTO merchant_daily_totals_committed (merchant_id, day, currency,"
                                + " total_minor, payments, checkpoint_id, key_group) SELECT"
                                + " merchant_id, (updated_at AT TIME ZONE 'UTC')::date, currency,"
                                + " sum(amount), count(*), 1, 0 FROM payments WHERE payment_id"
                                + " NOT IN (SELECT payment_id FROM late_original) GROUP BY 1, 2, 3");
                s.execute(
                        "INSERT INTO late_events (event_id, merchant_id, day, currency, amount,"
                                + " event_time) SELECT payment_id || ':SUCCEEDED', merchant_id,"
                                + " (updated_at AT TIME ZONE 'UTC')::date, currency, amount,"
                                + " updated_at"
                                + ofDay
                                + " ORDER BY updated_at LIMIT 2000");
                s.execute(
                        "INSERT INTO sink_fences VALUES ('merchant_daily_totals', 0, 1, 'j', 't')");
                s.execute(
                        "INSERT INTO sink_progress (sink_table, key_group, checkpoint_id,"
                                + " final_through) VALUES ('merchant_daily_totals', 0, 1, '"
                                + first.plusDays(days)
                                + "')");
                s.execute("ANALYZE");
            }
            System.out.printf(
                    "Ledger: %,d payments over %d days, %,d on %s; loaded in %,d ms%n",
                    (long) perDay * days,
                    days,
                    perDay,
                    day,
                    (System.nanoTime() - load) / 1_000_000);
            List<Long> times = new ArrayList<>();
            try (Connection c = db.connect()) {
                LedgerRecount recount = new LedgerRecount(c, ZoneOffset.UTC);
                for (int run = 0; run < runs; run++) {
                    RecountedDay result = recount.recount(day, false);
                    times.add(result.millis());
                    System.out.println("run " + (run + 1) + ": " + result.summary());
                }
            }
            Collections.sort(times);
            System.out.printf(
                    "Recount of one day of %,d payments: median %,d ms (min %,d, max %,d) over"
                            + " %d runs%n",
                    perDay, times.get(times.size() / 2), times.get(0), times.get(runs - 1), runs);
        }
    }
}
