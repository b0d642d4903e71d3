package io.effonce.feed.page;

import io.effonce.testing.PostgresEndpoint;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Writes the sink's tables as the sink does, as their owner: live rows, and a checkpoint's commit
 * (committed rows, the progress of key groups 0 and 1, and the {@code effonce_committed} notice, in
 * one transaction, delivered when it commits).
 */
final class SinkRows {

    static final String CURRENCY = "EUR";

    private final PostgresEndpoint db;

    SinkRows(PostgresEndpoint db) {
        this.db = db;
    }

    /** Gives {@code role} a password (a generated literal: ALTER ROLE takes no parameters). */
    static void setPassword(PostgresEndpoint db, String role, String password) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("ALTER ROLE " + role + " PASSWORD '" + password + "'");
        }
    }

    void live(LocalDate day, String merchant, long totalMinor, long payments) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement p =
                        c.prepareStatement(
                                "INSERT INTO merchant_daily_totals (merchant_id, day, currency,"
                                        + " total_minor, payments, barrier_tag, key_group)"
                                        + " VALUES (?, ?, ?, ?, ?, 1, 0)"
                                        + " ON CONFLICT (merchant_id, day, currency) DO UPDATE"
                                        + " SET total_minor = EXCLUDED.total_minor,"
                                        + " payments = EXCLUDED.payments,"
                                        + " written_at = now()")) {
            p.setString(1, merchant);
            p.setDate(2, Date.valueOf(day));
            p.setString(3, CURRENCY);
            p.setLong(4, totalMinor);
            p.setLong(5, payments);
            p.executeUpdate();
        }
    }

    /** Makes every live row's last write {@code age} older, as if the job had been idle since. */
    void ageLiveWrites(Duration age) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement p =
                        c.prepareStatement(
                                "UPDATE merchant_daily_totals SET written_at = written_at - ?"
                                        + "::interval")) {
            p.setString(1, age.toSeconds() + " seconds");
            p.executeUpdate();
        }
    }

    /** Makes every recorded commit {@code age} older. */
    void ageCommits(Duration age) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement p =
                        c.prepareStatement(
                                "UPDATE sink_progress SET committed_at = committed_at - ?"
                                        + "::interval")) {
            p.setString(1, age.toSeconds() + " seconds");
            p.executeUpdate();
        }
    }

    /**
     * The batch recount's total of a key the stream never committed (all its changes came late):
     * the final view holds it, the totals tables do not.
     */
    void recountedOnly(LocalDate day, String merchant, long totalMinor, long payments)
            throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement p =
                        c.prepareStatement(
                                "INSERT INTO merchant_daily_totals_recount (merchant_id, day,"
                                        + " currency, total_minor, payments, committed_minor,"
                                        + " late_events) VALUES (?, ?, ?, ?, ?, NULL, ?)")) {
            p.setString(1, merchant);
            p.setDate(2, Date.valueOf(day));
            p.setString(3, CURRENCY);
            p.setLong(4, totalMinor);
            p.setLong(5, payments);
            p.setLong(6, payments);
            p.executeUpdate();
        }
    }

    /** A committed value written without the commit notice: what the page must not poll for. */
    void committedWithoutNotice(
            LocalDate day, String merchant, long totalMinor, long payments, long checkpoint)
            throws SQLException {
        try (Connection c = db.connect()) {
            committed(c, day, merchant, totalMinor, payments, checkpoint);
        }
    }

    /**
     * Checkpoint {@code checkpoint}'s commit: the value of {@code merchant} (if not null), the
     * progress of both key groups, the notice.
     */
    void commit(
            long checkpoint,
            LocalDate day,
            String merchant,
            long totalMinor,
            long payments,
            Progress progress)
            throws SQLException {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            if (merchant != null) {
                committed(c, day, merchant, totalMinor, payments, checkpoint);
            }
            if (progress != null) {
                progress(c, checkpoint, progress);
            }
            try (PreparedStatement p = c.prepareStatement("SELECT pg_notify(?, ?)")) {
                p.setString(1, RefreshLoop.CHANNEL);
                p.setString(
                        2,
                        "{\"table\":\"merchant_daily_totals\",\"checkpoint\":"
                                + checkpoint
                                + ",\"key_groups\":\"0..1\",\"keys\":1}");
                p.execute();
            }
            c.commit();
        }
    }

    /**
     * What {@code sink_progress} says for both key groups: the watermark (with a horizon of 2 h the
     * totals are complete through two hours before it), final through {@code finalThrough}, the
     * last restore from {@code restoredCheckpoint} (null: none).
     */
    record Progress(
            Instant watermark,
            LocalDate finalThrough,
            Long restoredCheckpoint,
            Instant restoredAt) {}

    private static void committed(
            Connection c,
            LocalDate day,
            String merchant,
            long totalMinor,
            long payments,
            long checkpoint)
            throws SQLException {
        try (PreparedStatement p =
                c.prepareStatement(
                        "INSERT INTO merchant_daily_totals_committed (merchant_id, day, currency,"
                                + " total_minor, payments, checkpoint_id, key_group)"
                                + " VALUES (?, ?, ?, ?, ?, ?, 0)"
                                + " ON CONFLICT (merchant_id, day, currency) DO UPDATE"
                                + " SET total_minor = EXCLUDED.total_minor,"
                                + " payments = EXCLUDED.payments,"
                                + " checkpoint_id = EXCLUDED.checkpoint_id,"
                                + " committed_at = now()")) {
            p.setString(1, merchant);
            p.setDate(2, Date.valueOf(day));
            p.setString(3, CURRENCY);
            p.setLong(4, totalMinor);
            p.setLong(5, payments);
            p.setLong(6, checkpoint);
            p.executeUpdate();
        }
    }

    private static void progress(Connection c, long checkpoint, Progress progress)
            throws SQLException {
        for (int keyGroup = 0; keyGroup <= 1; keyGroup++) {
            try (PreparedStatement p =
                    c.prepareStatement(
                            "INSERT INTO sink_fences (sink_table, key_group, owner_token,"
                                    + " owner_job, owner_task) VALUES ('merchant_daily_totals', ?,"
                                    + " 1, 'job/run', 'subtask 0 of 1, attempt 0')"
                                    + " ON CONFLICT DO NOTHING")) {
                p.setInt(1, keyGroup);
                p.executeUpdate();
            }
            try (PreparedStatement p =
                    c.prepareStatement(
                            "INSERT INTO sink_progress (sink_table, key_group, checkpoint_id,"
                                    + " watermark, final_through, restored_checkpoint,"
                                    + " restored_at, horizon) VALUES ('merchant_daily_totals', ?, ?,"
                                    + " ?, ?, ?, ?, INTERVAL '2 hours')"
                                    + " ON CONFLICT (sink_table, key_group) DO UPDATE SET"
                                    + " checkpoint_id = EXCLUDED.checkpoint_id,"
                                    + " watermark = EXCLUDED.watermark,"
                                    + " final_through = EXCLUDED.final_through,"
                                    + " restored_checkpoint = EXCLUDED.restored_checkpoint,"
                                    + " restored_at = EXCLUDED.restored_at,"
                                    + " committed_at = now()")) {
                p.setInt(1, keyGroup);
                p.setLong(2, checkpoint);
                p.setTimestamp(3, Timestamp.from(progress.watermark()));
                p.setDate(4, Date.valueOf(progress.finalThrough()));
                if (progress.restoredCheckpoint() == null) {
                    p.setNull(5, java.sql.Types.BIGINT);
                    p.setNull(6, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
                } else {
                    p.setLong(5, progress.restoredCheckpoint());
                    p.setTimestamp(6, Timestamp.from(progress.restoredAt()));
                }
                p.executeUpdate();
            }
        }
    }
}
