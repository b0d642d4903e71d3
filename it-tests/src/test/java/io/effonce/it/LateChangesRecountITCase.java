package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.feed.recount.RecountCommand;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.OldChangeCopy;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.oracle.MerchantDay;
import io.effonce.testing.oracle.Total;
import io.effonce.testing.workload.WorkloadReport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * Late changes go to a batch recount (feed/README.md). The stream runs over 1 March; then the
 * ledger gets a genuinely late original (a SUCCEEDED payment of 1 March written hours behind the
 * watermark) and the relay re-delivers an early change the stream had counted; both land in
 * late_events. Once 2 March's payments make 1 March final, the recount (the command, as {@code
 * effonce_recount}) publishes 1 March from the ledger, and the final view equals the ledger exactly
 * — where the committed totals miss the late original and committed + late counts the re-delivery
 * twice. A TaskManager killed mid-checkpoint afterwards makes the sink flush its ranges after the
 * restore: the recount stays as it was, and the final view still equals the ledger.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class LateChangesRecountITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.taskManagers(2);

    private static final Duration TIMEOUT = TotalsInvariant.TIMEOUT;
    private static final String PASSWORD = "test-" + UUID.randomUUID();
    private static final LocalDate MARCH_1 =
            Workloads.START.atZone(java.time.ZoneOffset.UTC).toLocalDate();

    @Test
    void theRecountMakesTheFinalViewEqualTheLedgerAndARestoreLeavesItAlone(
            PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Path dir = WorkDirs.fresh("late-recount");
        Relays relays = new Relays(db, kafka.servers(), "recount", dir);
        SinkTables tables = new SinkTables(db);
        LedgerOracle oracle = new LedgerOracle(db);
        try (LedgerRelay relay = relays.start()) {
            JobClient job =
                    PipelineJob.over(
                                    db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"))
                            .start("late-recount");
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            faults.awaitAllTasksRunning(TIMEOUT);
            // 3,000 payments 5 s apart from 06:00 on 1 March: the watermark ends past 10:00.
            WorkloadReport march1 = Workloads.runAsync(Workloads.options("rc", 3_000, 0), db).get();
            TotalsInvariant.awaitHolds(db, TIMEOUT);

            OldChangeCopy redelivery =
                    OldChangeCopy.oldestSucceeded(db, kafka.servers(), relays.topic());
            tables.execute(
                    "INSERT INTO payments (payment_id, caller_id, client_key, merchant_id,"
                            + " fingerprint, amount, currency, state, updated_at) VALUES"
                            + " ('late_original', 'c', 'late_original', '"
                            + redelivery.key().merchantId()
                            + "', 'f', 777, '"
                            + redelivery.key().currency()
                            + "', 'SUCCEEDED', '"
                            + Workloads.START.plus(Duration.ofMinutes(30))
                            + "')");
            redelivery.republish(kafka.servers(), relays.topic());
            await("the late original and the late re-delivery in late_events")
                    .atMost(TIMEOUT)
                    .until(
                            () ->
                                    tables.lateEventIds()
                                            .containsAll(
                                                    java.util.List.of(
                                                            "late_original:SUCCEEDED",
                                                            redelivery.eventId())));

            // 2 March's payments carry the watermark past 1 March's end + the 2 h horizon.
            Workloads.runAsync(
                            Workloads.options(
                                    "rc2",
                                    500,
                                    0,
                                    march1.lastEventTime().plus(Duration.ofHours(20))),
                            db)
                    .get();
            await("1 March final in committed_progress")
                    .atMost(TIMEOUT)
                    .ignoreExceptions()
                    .until(
                            () ->
                                    !LocalDate.parse(
                                                    tables.text(
                                                            "SELECT final_through FROM"
                                                                    + " committed_progress"))
                                            .isBefore(MARCH_1));

            MerchantDay key = redelivery.key();
            Total ledger = oracle.ledgerTotals().get(key);
            await("the committed totals of 1 March caught up with the stream")
                    .atMost(TIMEOUT)
                    .until(
                            () ->
                                    ledger.equals(
                                            oracle.committedTotals()
                                                    .get(key)
                                                    .plus(new Total(777, 1))));
            assertThat(LedgerOracle.sum(oracle.committedTotals(), oracle.lateTotals()).get(key))
                    .as("committed + late counts the re-delivered change twice")
                    .isEqualTo(ledger.plus(new Total(redelivery.amount(), 1)));

            tables.execute("ALTER ROLE effonce_recount PASSWORD '" + PASSWORD + "'");
            String out = recount(db, dir, "--late");
            assertThat(out)
                    .contains(MARCH_1 + ": ")
                    .contains("2 late ids (2 in the ledger, " + (777 + redelivery.amount()))
                    .contains(redelivery.amount() + " of them counted before");
            Comparison afterRecount = awaitFinalViewEqualsLedger(db, oracle);
            SortedMap<MerchantDay, Total> recounted = recountTable(tables);
            assertThat(recounted).containsEntry(key, ledger);

            try (ChaosReport report = new ChaosReport("late-recount", db)) {
                faults.terminateTaskManagerMidCheckpoint(report);
                report.figure("final view after the recount", afterRecount.summary());
            }
            assertThat(
                            tables.number(
                                    "SELECT count(*) FROM committed_progress WHERE"
                                            + " last_restored_checkpoint IS NOT NULL"))
                    .as("the sink recorded the restore")
                    .isEqualTo(1);
            assertThat(recountTable(tables))
                    .as("the restore flush left the recount as it was")
                    .isEqualTo(recounted);
            Comparison afterRestore = awaitFinalViewEqualsLedger(db, oracle);
            assertThat(afterRestore.keys()).isPositive();
            job.cancel().get();
        } finally {
            relays.dropSlot();
        }
    }

    private static Comparison awaitFinalViewEqualsLedger(PostgresEndpoint db, LedgerOracle oracle) {
        Comparison[] last = {null};
        await("merchant_daily_totals_final equal to the ledger")
                .atMost(TIMEOUT)
                .until(
                        () ->
                                (last[0] = Comparison.of(oracle.ledgerTotals(), finalView(db)))
                                        .matches());
        return last[0];
    }

    private static SortedMap<MerchantDay, Total> finalView(PostgresEndpoint db) {
        return totals(new SinkTables(db), "merchant_daily_totals_final");
    }

    private static SortedMap<MerchantDay, Total> recountTable(SinkTables tables) {
        return totals(tables, "merchant_daily_totals_recount");
    }

    private static SortedMap<MerchantDay, Total> totals(SinkTables tables, String table) {
        SortedMap<MerchantDay, Total> totals = new TreeMap<>();
        tables.query(
                "SELECT merchant_id, day, currency, total_minor, payments FROM " + table,
                rs ->
                        totals.put(
                                MerchantDay.fromColumns(rs),
                                new Total(rs.getLong(4), rs.getLong(5))));
        return totals;
    }

    /** Runs the recount command as effonce_recount; returns what it printed. */
    private static String recount(PostgresEndpoint db, Path dir, String... args) throws Exception {
        Path passwordFile = dir.resolve("recount.password");
        Files.writeString(passwordFile, PASSWORD);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new RecountCommand());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        String[] all = new String[args.length + 3];
        all[0] = "--jdbc-url=" + db.jdbcUrl();
        all[1] = "--user=effonce_recount";
        all[2] = "--password-file=" + passwordFile;
        System.arraycopy(args, 0, all, 3, args.length);
        int exit = cli.execute(all);
        assertThat(exit).as("recount exit code; stderr: %s", err).isZero();
        return out.toString();
    }
}
