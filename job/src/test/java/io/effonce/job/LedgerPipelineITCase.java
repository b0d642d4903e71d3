package io.effonce.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.job.decode.BadRecords;
import io.effonce.job.testutils.SideTableRows;
import io.effonce.job.testutils.SyntheticLedger;
import io.effonce.job.testutils.TestEndpoints;
import io.effonce.job.testutils.Topics;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaTopics;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole pipeline on a MiniCluster over a real Kafka topic and a real PostgreSQL: re-delivered
 * changes are dropped, bad records become dead letters without a restart, and the totals equal what
 * the change stream says.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class LedgerPipelineITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    @Test
    void totalsEqualTheLedgerDuplicatesAreDroppedAndBadRecordsAreDeadLetters(
            PostgresEndpoint server, KafkaBootstrap kafka) throws Exception {
        PostgresEndpoint db = LocalServices.newDatabase(server, "pipeline");
        SchemaTool.applyAll(db);
        String topic = "pipeline.public.payments";
        KafkaTopics.create(kafka.servers(), topic, 2);
        SyntheticLedger ledger =
                new SyntheticLedger(3_000, Instant.parse("2026-11-28T00:00:00Z"), 2);
        List<SyntheticLedger.Change> records = new ArrayList<>(ledger.changes());
        for (BadRecords.Bad bad : BadRecords.ALL) {
            records.add(records.size() / 2, new SyntheticLedger.Change("bad", bad.value()));
        }
        Topics.publish(kafka.servers(), topic, records);

        Configuration config = new Configuration();
        config.set(JobOptions.KAFKA_BOOTSTRAP, kafka.servers());
        config.set(JobOptions.TOPIC, List.of(topic));
        // No restarts: a bad record must never fail the job, so any failure fails the test.
        TestEndpoints.runBounded(config, db, "ledger-pipeline-itcase");

        assertThat(new TotalsTable<>(db, MerchantDayRows.MAPPING).totals())
                .isEqualTo(ledger.expectedTotals());
        assertThat(new TotalsTable<>(db, MerchantDayRows.MAPPING).totals().keySet())
                .extracting(MerchantDayKey::day)
                .containsOnly(LocalDate.of(2026, 11, 28), LocalDate.of(2026, 11, 29));
        assertThat(SideTableRows.deadLetterReasons(db))
                .hasSize(BadRecords.ALL.size())
                .allSatisfy(
                        reason ->
                                assertThat(BadRecords.ALL)
                                        .anySatisfy(
                                                b -> assertThat(reason).startsWith(b.reason())));
        assertThat(SideTableRows.count(db, "SELECT count(*) FROM late_events")).isZero();
    }
}
