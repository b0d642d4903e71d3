package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.Heartbeats;
import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TaskManagerKill;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Clocks that lie, on the real relay and a MiniCluster: one application server writes well-formed
 * SUCCEEDED payments with an {@code updated_at} far in the future (9000-01-01, and thirty days
 * ahead) on every partition, and a relay with a clock stepped forward publishes heartbeats from the
 * future on every partition, in the middle of the stream; then more traffic and a TaskManager
 * killed mid-checkpoint. Each of them is a dead letter ({@code event-time-ahead}), event time does
 * not move, nothing that was on time is judged late, and the totals equal the ledger once the
 * payments' times are corrected in the ledger (the repair job/README describes). Before the bound,
 * the same stream left 486 changes late and 77 merchant-days missing (issue 25).
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class WrongClocksITCase {

    private static final int PARTITIONS = 2;
    private static final double RATE = 1_000;
    private static final String MERCHANT = "m_wrong_clock";
    private static final Instant FAR_AHEAD = Instant.parse("9000-01-01T00:00:00Z");
    private static final Duration HORIZON = Duration.ofHours(2);

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.taskManagers(2);

    private final Path dir = WorkDirs.fresh("wrong-clocks");

    @Test
    void changesAndHeartbeatsFromWrongClocksAreDeadLettersAndTheTotalsStayExact(
            PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Relays relays = new Relays(db, kafka.servers(), "wrongclock", dir);
        SinkTables tables = new SinkTables(db);
        try (LedgerRelay relay = relays.start();
                ChaosReport report = new ChaosReport("wrong-clocks", db)) {
            JobClient job =
                    PipelineJob.over(
                                    db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"))
                            .checkpointInterval(Duration.ofMillis(300))
                            .start("wrong-clocks");
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);

            List<String> wrong = wrongClockPaymentIds();
            try (RunningWorkload workload =
                    RunningWorkload.start(Workloads.unbounded("wrongclock", RATE), db)) {
                workload.awaitMore(2_000);
                Instant now = Instant.now();
                insertPayments(db, wrong, now.plus(Duration.ofDays(30)));
                publishHeartbeats(kafka.servers(), relays.topic(), now.plus(Duration.ofDays(30)));
                workload.awaitMore(2_000);
                await("the wrong-clock changes and heartbeats in dead_letters")
                        .atMost(TotalsInvariant.TIMEOUT)
                        .until(() -> aheadDeadLetters(tables).size() >= wrong.size() + PARTITIONS);

                // Their records are read again after the restore: still dead letters, once each.
                TaskManagerKill kill = faults.terminateTaskManagerMidCheckpoint(report);
                workload.awaitMore(2_000);

                // The repair: the application server's clock fixed, its rows' times corrected.
                // The corrected changes are new records with sane times, counted like any other.
                workload.whilePaused(() -> correctTimes(tables, wrong));
                TotalsInvariant.awaitExactAfter(kill.recovery(), workload, db);
                workload.awaitMore(2_000);
                workload.stopAndDrain();
            }
            TotalsInvariant.awaitHoldsWithNothingLate(db, TotalsInvariant.TIMEOUT);

            List<String> ahead = aheadDeadLetters(tables);
            assertThat(ahead).hasSize(wrong.size() + PARTITIONS);
            assertThat(ahead)
                    .filteredOn(r -> r.contains("updated_at"))
                    .hasSize(wrong.size())
                    .anySatisfy(r -> assertThat(r).contains("updated_at 9000-01-01T00:00:00Z"));
            assertThat(ahead).filteredOn(r -> r.contains("heartbeat ts_ms")).hasSize(PARTITIONS);
            assertThat(tables.count("late_events")).as("changes judged late").isZero();
            assertThat(
                            tables.number(
                                    "SELECT count(*) FROM merchant_daily_totals"
                                            + " WHERE day > now()::date"))
                    .as("days in the future")
                    .isZero();
            assertThat(
                            tables.text(
                                    "SELECT (max(watermark) < now())::text FROM sink_progress"
                                            + " WHERE sink_table = 'merchant_daily_totals'"))
                    .as("event time stayed in the past")
                    .isEqualTo("true");
            assertCompleteThroughIsTheWatermarkMinusTheHorizon(tables);
            aChangeBehindTheWatermarkIsCountedAfterTheBarrierButNotBehindCompleteThrough(
                    db, tables);
            report.figure("dead letters event-time-ahead", ahead.size());
            report.figure("late events", tables.count("late_events"));
            report.close();
            job.cancel().get();
        } finally {
            relays.dropSlot();
        }
    }

    /**
     * committed_progress promises only what holds: a change up to the horizon behind the watermark
     * can still be accepted after the barrier, so the totals are complete through {@code watermark
     * - horizon}, not through the watermark.
     */
    private static void assertCompleteThroughIsTheWatermarkMinusTheHorizon(SinkTables tables) {
        await("committed_progress with complete_through")
                .atMost(TotalsInvariant.TIMEOUT)
                .until(
                        () ->
                                tables.text(
                                                "SELECT complete_through FROM committed_progress"
                                                        + " WHERE sink_table ="
                                                        + " 'merchant_daily_totals'")
                                        != null);
        assertThat(
                        tables.text(
                                "SELECT (c.complete_through = (SELECT min(watermark) - interval '"
                                        + HORIZON.toHours()
                                        + " hours' FROM sink_progress p WHERE p.sink_table ="
                                        + " c.sink_table))::text FROM committed_progress c"
                                        + " WHERE c.sink_table = 'merchant_daily_totals'"))
                .isEqualTo("true");
    }

    /**
     * The promise checked with a change: after a commit whose smallest watermark is W, a payment at
     * W - 90 min (behind W, ahead of complete_through = W - 2 h) arrives and is counted. The old
     * definition (complete through W) was broken by it; the new one holds.
     */
    private static void
            aChangeBehindTheWatermarkIsCountedAfterTheBarrierButNotBehindCompleteThrough(
                    PostgresEndpoint db, SinkTables tables) throws SQLException {
        Instant committedWatermark =
                Instant.parse(
                        tables.text(
                                "SELECT to_char(min(watermark) AT TIME ZONE 'UTC',"
                                        + " 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM sink_progress"
                                        + " WHERE sink_table = 'merchant_daily_totals'"));
        Instant at = committedWatermark.minus(Duration.ofMinutes(90));
        insertPayment(db, "behind_the_watermark", "m_behind", at);
        TotalsInvariant.awaitHoldsWithNothingLate(db, TotalsInvariant.TIMEOUT);
        assertThat(
                        tables.number(
                                "SELECT count(*) FROM merchant_daily_totals"
                                        + " WHERE merchant_id = 'm_behind'"))
                .as("the change behind the committed watermark, counted after the barrier")
                .isEqualTo(1);
        assertThat(
                        tables.text(
                                "SELECT (complete_through < '"
                                        + at
                                        + "'::timestamptz)::text FROM committed_progress"
                                        + " WHERE sink_table = 'merchant_daily_totals'"))
                .as("complete_through stays behind every change still counted")
                .isEqualTo("true");
    }

    /** Two payment ids per partition, as the relay partitions them (by key). */
    private static List<String> wrongClockPaymentIds() {
        List<String> ids = new ArrayList<>();
        int[] perPartition = new int[PARTITIONS];
        for (int i = 0; ids.size() < 2 * PARTITIONS; i++) {
            String id = "wrong_clock_" + i;
            int p =
                    Utils.toPositive(Utils.murmur2(id.getBytes(StandardCharsets.UTF_8)))
                            % PARTITIONS;
            if (perPartition[p] < 2) {
                perPartition[p]++;
                ids.add(id);
            }
        }
        return ids;
    }

    /**
     * SUCCEEDED payments of one merchant, as an application server with a wrong clock writes them:
     * half at 9000-01-01, half at {@code later}.
     */
    private static void insertPayments(PostgresEndpoint db, List<String> ids, Instant later)
            throws SQLException {
        for (int i = 0; i < ids.size(); i++) {
            insertPayment(db, ids.get(i), MERCHANT, i % 2 == 0 ? FAR_AHEAD : later);
        }
    }

    private static void insertPayment(PostgresEndpoint db, String id, String merchant, Instant at)
            throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement s =
                        c.prepareStatement(
                                "INSERT INTO payments (payment_id, caller_id, client_key,"
                                        + " merchant_id, fingerprint, amount, currency, state,"
                                        + " updated_at) VALUES (?, 'clock-test', ?, ?, 'f', 4200,"
                                        + " 'EUR', 'SUCCEEDED', ?)")) {
            s.setString(1, id);
            s.setString(2, id);
            s.setString(3, merchant);
            s.setTimestamp(4, Timestamp.from(at));
            s.executeUpdate();
        }
    }

    /** Heartbeats of a relay whose clock says {@code at}, one on every partition. */
    private static void publishHeartbeats(String bootstrap, String topic, Instant at) {
        Map<String, Object> props =
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ProducerConfig.ACKS_CONFIG,
                        "all");
        try (var producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int p = 0; p < PARTITIONS; p++) {
                // The relay's producer stamps its own clock; the topic's LogAppendTime replaces it.
                ProducerRecord<byte[], byte[]> r =
                        new ProducerRecord<>(
                                topic,
                                p,
                                at.toEpochMilli(),
                                Heartbeats.KEY.getBytes(StandardCharsets.UTF_8),
                                Heartbeats.value(at.toEpochMilli(), null)
                                        .getBytes(StandardCharsets.UTF_8));
                r.headers().add(Heartbeats.HEADER, "true".getBytes(StandardCharsets.UTF_8));
                producer.send(r);
            }
            producer.flush();
        }
    }

    /** Sets the wrong rows' times to the newest time the workload wrote: on time, not late. */
    private static void correctTimes(SinkTables tables, List<String> ids) {
        tables.execute(
                "UPDATE payments SET updated_at = (SELECT max(updated_at) FROM payments"
                        + " WHERE merchant_id <> '"
                        + MERCHANT
                        + "') WHERE merchant_id = '"
                        + MERCHANT
                        + "'");
        assertThat(
                        tables.number(
                                "SELECT count(*) FROM payments WHERE merchant_id = '"
                                        + MERCHANT
                                        + "' AND updated_at < now()"))
                .isEqualTo(ids.size());
    }

    private static List<String> aheadDeadLetters(SinkTables tables) {
        List<String> reasons = new ArrayList<>();
        tables.query(
                "SELECT reason FROM dead_letters WHERE reason LIKE 'event-time-ahead%'",
                rs -> reasons.add(rs.getString(1)));
        return reasons;
    }
}
