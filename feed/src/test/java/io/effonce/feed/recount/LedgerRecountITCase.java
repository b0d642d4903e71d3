package io.effonce.feed.recount;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.oracle.MerchantDay;
import io.effonce.testing.oracle.Total;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * The recount against a real PostgreSQL, run as the command with the {@code effonce_recount} role.
 * The stream committed 1 March without a genuinely late original (p_late, 700) and recorded two
 * late ids: p_late's and a late re-delivery of p1 (1,000), which the stream had counted. Adding
 * late_events to the committed totals would count p1 twice; the recount publishes the ledger's
 * figures, so the final view equals the ledger exactly.
 */
@ExtendWith(PostgresExtension.class)
class LedgerRecountITCase {

    private static final String PASSWORD = "test-" + UUID.randomUUID();
    private static final LocalDate DAY = LocalDate.parse("2026-03-01");
    private static final LocalDate NEXT = DAY.plusDays(1);
    private static final MerchantDay M1 = new MerchantDay("rc_m1", DAY, "EUR");

    private PostgresEndpoint db;

    @BeforeEach
    void streamCommittedTheDayWithoutItsLateOriginal(PostgresEndpoint db) throws SQLException {
        this.db = db;
        execute(
                "ALTER ROLE effonce_recount PASSWORD '" + PASSWORD + "'",
                "TRUNCATE payments, late_events, merchant_daily_totals_committed, sink_fences,"
                        + " sink_progress, sink_repairs, merchant_daily_totals_recount,"
                        + " recounted_days",
                payment("rc_p1", "rc_m1", 1_000, "EUR", "SUCCEEDED", "2026-03-01T08:00:00Z"),
                payment("rc_p2", "rc_m1", 2_000, "EUR", "SUCCEEDED", "2026-03-01T09:00:00Z"),
                payment("rc_p3", "rc_m2", 500, "USD", "SUCCEEDED", "2026-03-01T10:00:00Z"),
                payment("rc_p4", "rc_m2", 999, "USD", "FAILED", "2026-03-01T11:00:00Z"),
                payment("rc_late", "rc_m1", 700, "EUR", "SUCCEEDED", "2026-03-01T00:10:00Z"),
                payment("rc_p7", "rc_m1", 300, "EUR", "SUCCEEDED", "2026-03-02T08:00:00Z"),
                committed("rc_m1", DAY, "EUR", 3_000, 2),
                committed("rc_m2", DAY, "USD", 500, 1),
                committed("rc_m1", NEXT, "EUR", 300, 1),
                late("rc_late:SUCCEEDED", 700),
                late("rc_p1:SUCCEEDED", 1_000),
                "INSERT INTO sink_fences (sink_table, key_group, owner_token, owner_job,"
                        + " owner_task) VALUES ('merchant_daily_totals', 0, 1, 'job/run', 'test')",
                "INSERT INTO sink_progress (sink_table, key_group, checkpoint_id, watermark,"
                        + " final_through, day_zone) VALUES ('merchant_daily_totals', 0, 9,"
                        + " '2026-03-02T02:00:00Z', '2026-03-01', 'UTC')");
    }

    @Test
    void theFinalViewEqualsTheLedgerOnceTheLateDayIsRecounted() throws SQLException {
        LedgerOracle oracle = new LedgerOracle(db, ZoneOffset.UTC);
        Total ledger = oracle.ledgerTotals().get(M1);
        assertThat(ledger).isEqualTo(new Total(3_700, 3));
        assertThat(finalView()).as("before: the committed total").containsEntry(M1, 3_000L);
        assertThat(LedgerOracle.sum(oracle.committedTotals(), oracle.lateTotals()).get(M1))
                .as("committed + late counts the re-delivered p1 twice")
                .isEqualTo(new Total(4_700, 4));

        Run run = recount("--late");

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("2026-03-01: 2 keys, 1 changed; ledger 4200, committed 3500 (+700)")
                .contains("2 late ids (2 in the ledger, 1700 minor units, 1000 of them counted")
                .doesNotContain("2026-03-02");
        SortedMap<MerchantDay, Long> expected = new TreeMap<>();
        oracle.ledgerTotals().forEach((key, total) -> expected.put(key, total.totalMinor()));
        assertThat(finalView())
                .as("the recount for the final late day, committed for the next")
                .isEqualTo(expected);
        assertThat(sources())
                .containsEntry(M1, "recount")
                .containsEntry(new MerchantDay("rc_m1", NEXT, "EUR"), "committed");
        assertThat(oracle.committedTotals().get(M1))
                .as("the stream's own table is left as it was")
                .isEqualTo(new Total(3_000, 2));
    }

    @Test
    void aDayIsRecountedAgainOnlyWhenItHasNewLateEvents() throws SQLException {
        assertThat(recount("--late").exit()).isZero();
        assertThat(recount("--late").out()).contains("Nothing to recount.");

        execute(
                payment("rc_late2", "rc_m2", 40, "USD", "SUCCEEDED", "2026-03-01T00:20:00Z"),
                late("rc_late2:SUCCEEDED", 40)
                        .replace("'rc_m1', '2026-03-01', 'EUR'", "'rc_m2', '2026-03-01', 'USD'"));
        assertThat(recount("--late").out()).contains("2026-03-01: 2 keys, 2 changed");
        assertThat(finalView()).containsEntry(new MerchantDay("rc_m2", DAY, "USD"), 540L);
    }

    /**
     * The sink's database went back in time and lost rc_m3's final row of 1 March (rc_p9, 400),
     * retired longer ago than the sink keeps retired values: no late event names the day, but the
     * restore recorded its repair with the last final day the database still had (28 February). 1
     * March is due, the recount restores the row in the final view, and it is due no more.
     */
    @Test
    void aFinalDayAfterARecordedRepairIsDueOnceWithoutLateEvents() throws SQLException {
        execute(
                "TRUNCATE late_events",
                payment("rc_p9", "rc_m3", 400, "EUR", "SUCCEEDED", "2026-03-01T13:00:00Z"),
                "INSERT INTO sink_repairs (sink_table, key_group_first, key_group_last,"
                        + " restored_checkpoint, final_through_found) VALUES"
                        + " ('merchant_daily_totals', 0, 127, 9, '2026-02-28')");
        MerchantDay lost = new MerchantDay("rc_m3", DAY, "EUR");
        assertThat(finalView()).as("the row the database lost").doesNotContainKey(lost);

        Run run = recount("--late");

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("2026-03-01:").doesNotContain("2026-03-02");
        assertThat(finalView()).containsEntry(lost, 400L).containsEntry(M1, 3_700L);
        assertThat(recount("--late").out()).contains("Nothing to recount.");
    }

    /**
     * An older savepoint restored re-opens the recounted day; the stream then counts a payment for
     * it (rc_p8, 250) and commits 3,250. The recount (3,700) misses that payment: the final view
     * stops preferring it, and the day is due again, after which the view equals the ledger.
     */
    @Test
    void aRecountTheStreamChangedAfterARestoreIsNoLongerPreferredAndIsDueAgain()
            throws SQLException {
        assertThat(recount("--late").exit()).isZero();
        assertThat(finalView()).containsEntry(M1, 3_700L);

        execute(
                payment("rc_p8", "rc_m1", 250, "EUR", "SUCCEEDED", "2026-03-01T12:00:00Z"),
                "UPDATE merchant_daily_totals_committed SET total_minor = 3250, payments = 3"
                        + " WHERE merchant_id = 'rc_m1' AND day = '2026-03-01'");
        assertThat(sources()).as("the recount no longer holds").containsEntry(M1, "committed");
        assertThat(finalView()).containsEntry(M1, 3_250L);

        Run again = recount("--late");
        assertThat(again.out()).contains("2026-03-01:");
        assertThat(sources()).containsEntry(M1, "recount");
        assertThat(finalView()).as("the ledger: 1000 + 2000 + 700 + 250").containsEntry(M1, 3_950L);
    }

    @Test
    void aDayThatIsNotFinalIsRefusedWithTheReason() throws SQLException {
        execute(late("rc_p7:SUCCEEDED", 300).replace("2026-03-01", "2026-03-02"));
        Run run = recount("--day", "2026-03-02");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.err())
                .contains("Day 2026-03-02 is not final yet")
                .contains("final through 2026-03-01")
                .contains("--even-if-open");
        assertThat(recount("--late").out())
                .contains("2026-03-02: late events, not final yet (final through 2026-03-01)");
        assertThat(recount("--day", "2026-03-02", "--even-if-open").exit()).isZero();
    }

    /** Days are dates in the job's zone: a recount in another would publish other days. */
    @Test
    void aZoneOtherThanTheJobsIsRefused() throws SQLException {
        Run run = recount("--late", "--zone=Europe/Berlin");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err())
                .contains("--zone Europe/Berlin is not the job's totals.zone, UTC")
                .contains("leave --zone out or pass --zone UTC");
        assertThat(recount("--late", "--zone=Etc/UTC").exit()).as("the same zone").isZero();

        execute("UPDATE sink_progress SET day_zone = NULL");
        assertThat(recount("--late").err()).contains("name the job's totals.zone with --zone");
    }

    @Test
    void withoutDaysTheCommandSaysWhatToName() {
        Run run = recount();
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("--day YYYY-MM-DD (repeatable) or --late");
    }

    private record Run(int exit, String out, String err) {}

    private Run recount(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new RecountCommand());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        String passwordFile = writePasswordFile();
        String[] all = new String[args.length + 3];
        all[0] = "--jdbc-url=" + db.jdbcUrl();
        all[1] = "--password-file=" + passwordFile;
        all[2] = "--user=effonce_recount";
        System.arraycopy(args, 0, all, 3, args.length);
        int exit = cli.execute(all);
        return new Run(exit, out.toString(), err.toString());
    }

    private static String writePasswordFile() {
        try {
            java.nio.file.Path file = java.nio.file.Files.createTempFile("recount", ".password");
            java.nio.file.Files.writeString(file, PASSWORD + "\n");
            file.toFile().deleteOnExit();
            return file.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private Map<MerchantDay, Long> finalView() throws SQLException {
        Map<MerchantDay, Long> totals = new TreeMap<>();
        query(
                "SELECT merchant_id, day, currency, total_minor FROM merchant_daily_totals_final",
                (key, rs) -> totals.put(key, rs.getLong(4)));
        return totals;
    }

    private Map<MerchantDay, String> sources() throws SQLException {
        Map<MerchantDay, String> sources = new TreeMap<>();
        query(
                "SELECT merchant_id, day, currency, source FROM merchant_daily_totals_final",
                (key, rs) -> sources.put(key, rs.getString(4)));
        return sources;
    }

    private interface RowAction {
        void accept(MerchantDay key, ResultSet rs) throws SQLException;
    }

    private void query(String sql, RowAction action) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                action.accept(
                        new MerchantDay(
                                rs.getString(1),
                                rs.getObject(2, LocalDate.class),
                                rs.getString(3).strip()),
                        rs);
            }
        }
    }

    private void execute(String... statements) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private static String payment(
            String id, String merchant, long amount, String currency, String state, String at) {
        return ("INSERT INTO payments (payment_id, caller_id, client_key, merchant_id, fingerprint,"
                        + " amount, currency, state, updated_at) VALUES ('%s', 'c', '%s', '%s',"
                        + " 'f', %d, '%s', '%s', '%s')")
                .formatted(id, id, merchant, amount, currency, state, at);
    }

    private static String committed(
            String merchant, LocalDate day, String currency, long total, long payments) {
        return ("INSERT INTO merchant_daily_totals_committed (merchant_id, day, currency,"
                        + " total_minor, payments, checkpoint_id, key_group) VALUES ('%s', '%s',"
                        + " '%s', %d, %d, 9, 0)")
                .formatted(merchant, day, currency, total, payments);
    }

    private static String late(String eventId, long amount) {
        return ("INSERT INTO late_events (event_id, merchant_id, day, currency, amount,"
                        + " event_time) VALUES ('%s', 'rc_m1', '2026-03-01', 'EUR', %d,"
                        + " '2026-03-01T08:00:00Z')")
                .formatted(eventId, amount);
    }
}
