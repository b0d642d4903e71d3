package io.effonce.job.upgrade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.effonce.dedup.DedupOptions;
import io.effonce.job.testutils.Topics;
import io.effonce.local.PostgresEndpoint;
import io.effonce.local.junit.KafkaExtension;
import io.effonce.local.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.local.junit.PostgresExtension;
import io.effonce.sink.store.MerchantDayKey;
import io.effonce.sink.testutils.TotalsTable;
import java.net.URI;
import java.net.URL;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every release's whole-job savepoint ({@link JobSavepointFixture}) restores into the current job
 * over the same topic, and the job goes on from it exactly: the restored sink state is flushed into
 * an empty table (phase one's totals reappear), the restored daily totals go on from their sums
 * (new payments at the end of phase one's day), the restored ids drop phase one's re-deliveries,
 * the restored floor rejects an old copy as late, and phase two is counted. A release that cannot
 * restore an older savepoint needs a deliberate, documented migration (job/README.md, "Upgrades").
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class JobSavepointCompatibilityITCase {

    @TempDir Path dir;

    @ParameterizedTest(name = "release {0}")
    @ValueSource(strings = {"0.1.0"})
    void theSavepointRestoresAndTheJobGoesOnExactly(
            String release, PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
        Path savepoint = copyOfFixture(release);
        Topics.create(kafka.servers(), JobSavepointFixture.TOPIC, JobSavepointFixture.PARTITIONS);
        // The same records at the same offsets as when the savepoint was taken, then what follows.
        Topics.publish(
                kafka.servers(),
                JobSavepointFixture.TOPIC,
                JobSavepointFixture.phaseOne().changes());
        Topics.publish(
                kafka.servers(),
                JobSavepointFixture.TOPIC,
                JobSavepointFixture.afterTheSavepoint());

        JobClient job =
                JobSavepointFixture.start(
                        db, kafka.servers(), dir.resolve("checkpoints"), savepoint);
        Map<MerchantDayKey, Long> expected = JobSavepointFixture.expectedAtTheEnd();
        String savepointOfTheRestoredJob = null;
        try {
            try {
                await("the sink to equal phase one (restored), the end of its day and phase two")
                        .atMost(JobSavepointFixture.TIMEOUT)
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> new TotalsTable(db).totals().equals(expected));
            } catch (ConditionTimeoutException e) {
                throw new AssertionError(
                        "The restored job never reached the expected totals; keys that differ"
                                + " (expected vs actual): "
                                + differences(expected, new TotalsTable(db).totals())
                                + "; late_events: "
                                + lateEventIds(db),
                        e);
            }
            await("the old copy in late_events")
                    .atMost(JobSavepointFixture.TIMEOUT)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> !lateEventIds(db).isEmpty());
            assertThat(lateEventIds(db)).containsExactly("a_1:SUCCEEDED");
            assertThat(new TotalsTable(db).totals()).isEqualTo(expected);
            savepointOfTheRestoredJob =
                    job.stopWithSavepoint(
                                    false,
                                    dir.resolve("savepoints").toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get();
        } finally {
            if (savepointOfTheRestoredJob == null) {
                job.cancel().get();
            }
        }

        // The old savepoint recorded no settings; the restored job recorded the ones it ran with
        // (dedup.horizon 2 h, totals.zone UTC), and a restore that raises the horizon is refused.
        Configuration raised = new Configuration();
        raised.set(DedupOptions.HORIZON, Duration.ofHours(3));
        JobClient refused =
                JobSavepointFixture.start(
                        db,
                        kafka.servers(),
                        dir.resolve("checkpoints-raised"),
                        Path.of(URI.create(savepointOfTheRestoredJob)),
                        raised);
        assertThatThrownBy(() -> refused.getJobExecutionResult().get())
                .hasStackTraceContaining("SettingChangedException")
                .hasStackTraceContaining(
                        "The restored state was built with dedup.horizon=2 h, this job has"
                                + " dedup.horizon=3 h");
        assertThat(new TotalsTable(db).totals())
                .as("the refused job wrote nothing")
                .isEqualTo(expected);
    }

    @Test
    void aJobWithoutExactlyOnceCheckpointsIsRefusedBeforeItRestoresAnything(
            PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
        Path savepoint = copyOfFixture(JobSavepointFixture.RELEASE);
        Configuration atLeastOnce = new Configuration();
        atLeastOnce.set(
                CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                CheckpointingMode.AT_LEAST_ONCE);
        assertThatThrownBy(
                        () ->
                                JobSavepointFixture.start(
                                        db,
                                        kafka.servers(),
                                        dir.resolve("checkpoints"),
                                        savepoint,
                                        atLeastOnce))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("execution.checkpointing.mode is AT_LEAST_ONCE")
                .hasMessageContaining("EXACTLY_ONCE");
    }

    private static String differences(
            Map<MerchantDayKey, Long> expected, Map<MerchantDayKey, Long> actual) {
        Set<MerchantDayKey> keys = new TreeSet<>(Comparator.comparing(MerchantDayKey::toString));
        keys.addAll(expected.keySet());
        keys.addAll(actual.keySet());
        return keys.stream()
                .filter(k -> !Objects.equals(expected.get(k), actual.get(k)))
                .limit(10)
                .map(k -> k + " " + expected.get(k) + " vs " + actual.get(k))
                .toList()
                .toString();
    }

    private Path copyOfFixture(String release) throws Exception {
        String resource = "/savepoints/" + release + "/job/_metadata";
        URL url = JobSavepointCompatibilityITCase.class.getResource(resource);
        assertThat(url).as("fixture %s on the test classpath", resource).isNotNull();
        Path from = Path.of(url.toURI()).getParent();
        Path to = dir.resolve("savepoint-" + release);
        JobSavepointFixture.copyTree(from, to);
        return to;
    }

    private static List<String> lateEventIds(PostgresEndpoint db) throws Exception {
        List<String> ids = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT event_id FROM late_events")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }
}
