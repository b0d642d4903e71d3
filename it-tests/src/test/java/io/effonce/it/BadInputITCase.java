package io.effonce.it;

import static io.effonce.job.decode.Envelopes.after;
import static io.effonce.job.decode.Envelopes.schemasOff;
import static io.effonce.job.decode.Envelopes.schemasOn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.job.decode.BadRecords;
import io.effonce.job.decode.BadRecords.Bad;
import io.effonce.job.testutils.SyntheticLedger;
import io.effonce.job.testutils.Topics;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Malformed records among the relay's good changes: each becomes exactly one {@code dead_letters}
 * row with its reason, the totals stay equal to the ledger, and no bad record fails a task (the job
 * runs with restarts off, so one failure would end it).
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class BadInputITCase {

    private static final String GOOD =
            after("pay_bad", "m1", 3000, "EUR", "SUCCEEDED", "2025-03-01T12:00:00Z");

    /** The job module's seventeen, and more kinds of our own. */
    private static final List<Bad> BAD = new ArrayList<>(BadRecords.ALL);

    static {
        BAD.add(
                new Bad(
                        schemasOff(GOOD.replace("\"currency\":\"EUR\",", "")),
                        "missing-field: after.currency"));
        BAD.add(
                new Bad(
                        schemasOff(GOOD.replace(",\"updated_at\":\"2025-03-01T12:00:00Z\"", "")),
                        "missing-field: after.updated_at"));
        BAD.add(
                new Bad(
                        schemasOff(GOOD.replace("\"state\":\"SUCCEEDED\",", "")),
                        "missing-field: after.state"));
        BAD.add(
                new Bad(
                        schemasOff(GOOD.replace("\"merchant_id\":\"m1\"", "\"merchant_id\":17")),
                        "mistyped-field: after.merchant_id"));
        BAD.add(
                new Bad(
                        schemasOff(GOOD.replace("\"currency\":\"EUR\"", "\"currency\":\"EURO\"")),
                        "bad-currency: 'EURO'"));
        BAD.add(
                new Bad(
                        schemasOn(GOOD.replace("\"amount\":3000", "\"amount\":-1")),
                        "negative-amount: -1"));
        BAD.add(
                new Bad(
                        schemasOff(GOOD.replace("2025-03-01T12:00:00Z", "2025-13-01T00:00:00Z")),
                        "bad-time"));
        // Values no sink column or index can hold: refused at the door, never sent to the sink.
        BAD.add(BadRecords.HUGE_MERCHANT);
    }

    /** The raw value a dead letter keeps: NUL replaced, cut to the job's default limit. */
    private static String kept(String value) {
        String raw = value.replace('\u0000', '\uFFFD');
        return raw.length() <= 4096 ? raw : raw.substring(0, 4096);
    }

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    private final Path dir = WorkDirs.fresh("bad-input");

    @Test
    void eachMalformedRecordIsOneDeadLetterWithItsReasonAndNothingRestarts(
            PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        assertThat(BAD).hasSizeGreaterThanOrEqualTo(15);
        Relays relays = new Relays(db, kafka.servers(), "badinput", dir);
        SinkTables tables = new SinkTables(db);
        try (LedgerRelay relay = relays.start()) {
            JobClient job =
                    PipelineJob.over(
                                    db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"))
                            .restarts(false)
                            .start("bad-input");
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            faults.awaitAllTasksRunning(Duration.ofMinutes(5));
            CompletableFuture<WorkloadReport> workload =
                    Workloads.runAsync(Workloads.options("badinput", 4_000, 2_000), db);
            await("1,000 payments in the ledger")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> tables.count("payments") > 1_000);
            Topics.publish(
                    kafka.servers(),
                    relays.topic(),
                    BAD.stream().map(b -> new SyntheticLedger.Change("bad", b.value())).toList());
            workload.get();

            TotalsInvariant.awaitHoldsWithNothingLate(db, Duration.ofMinutes(5));
            await("every bad record in dead_letters")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> tables.count("dead_letters") >= BAD.size());
            Map<String, String> deadLetters = tables.deadLetters();
            assertThat(deadLetters).hasSize(BAD.size());
            for (Bad bad : BAD) {
                assertThat(deadLetters.get(kept(bad.value())))
                        .as("dead letter of %s", bad.value())
                        .startsWith(bad.reason());
            }
            assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            assertThat(faults.restores()).isZero();
            job.cancel().get();
        } finally {
            relays.dropSlot();
        }
    }
}
