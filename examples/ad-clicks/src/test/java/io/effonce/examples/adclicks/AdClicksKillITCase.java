package io.effonce.examples.adclicks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.CheckpointCounts;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaTopics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example job under TaskManager kills: clicks arrive in stretches, each with copies of earlier
 * clicks (a retrying client) and a malformed line; as soon as a stretch is in the table, one
 * TaskManager is terminated (mostly before the checkpoint that covers the stretch completes) and a
 * new one started. The clicks table and its committed table end equal to the distinct clicks per
 * campaign and hour.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class AdClicksKillITCase {

    private static final int STRETCHES = 3;
    private static final int CLICKS_PER_STRETCH = 3_000;
    private static final Instant DAY = Instant.parse("2026-11-28T00:00:00Z");

    /** Upper bound for each wait; a restore costs seconds, more on a busy machine. */
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    // One slot each: both task managers run a subtask, so every termination costs a restore.
    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.taskManagers(2);

    @TempDir Path dir;

    @Test
    void theCountsEqualTheDistinctClicksAfterTaskManagersAreKilled(
            PostgresEndpoint server, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        PostgresEndpoint db = LocalServices.newDatabase(server, "adclicks");
        Path password = Files.writeString(dir.resolve("pg.password"), db.password());
        String topic = "clicks";
        KafkaTopics.create(kafka.servers(), topic, 2);
        AdClicksSettings settings =
                new AdClicksSettings(
                        kafka.servers(),
                        topic,
                        db.jdbcUrl(),
                        db.user(),
                        password.toString(),
                        "ad_clicks_hourly",
                        true,
                        Duration.ofDays(1));

        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 100);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(1_000);
        AdClicksJob.build(env, settings);
        JobClient job = env.executeAsync("ad-clicks");
        JobID id = job.getJobID();

        List<Click> published = new ArrayList<>();
        for (int stretch = 0; stretch < STRETCHES; stretch++) {
            long checkpoints = CheckpointCounts.completed(cluster, id);
            await("a completed checkpoint before stretch " + stretch)
                    .atMost(TIMEOUT)
                    .until(() -> CheckpointCounts.completed(cluster, id) > checkpoints);
            List<Click> clicks = stretch(stretch, published);
            publish(kafka.servers(), topic, clicks);
            published.addAll(clicks);
            Map<String, Long> soFar = distinctCounts(published);
            // The kill lands as soon as the stretch is in the table: mostly before the checkpoint
            // that covers it, so the restore erases what the sink wrote after its barrier.
            await("stretch " + stretch + " in the clicks table")
                    .atMost(TIMEOUT)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> counts(db, "ad_clicks_hourly").equals(soFar));
            long restores = CheckpointCounts.restored(cluster, id);
            // The MiniCluster numbers task managers in start order: each kill takes a live one.
            cluster.terminateTaskManager(stretch).get();
            cluster.startTaskManager();
            await("a restore after terminating task manager " + stretch)
                    .atMost(TIMEOUT)
                    .until(() -> CheckpointCounts.restored(cluster, id) > restores);
        }
        // A last stretch after the last kill: the restored job goes on counting.
        List<Click> last = stretch(STRETCHES, published);
        publish(kafka.servers(), topic, last);
        published.addAll(last);

        Map<String, Long> expected = distinctCounts(published);
        assertThat(published.size())
                .as("the topic holds copies: counting lines would be wrong")
                .isGreaterThan(expected.values().stream().mapToInt(Long::intValue).sum());
        await("the clicks table at the distinct clicks")
                .atMost(TIMEOUT)
                .until(() -> counts(db, "ad_clicks_hourly").equals(expected));
        await("the committed table at the distinct clicks")
                .atMost(TIMEOUT)
                .until(() -> counts(db, "ad_clicks_hourly_committed").equals(expected));
        assertThat(CheckpointCounts.restored(cluster, id)).isGreaterThanOrEqualTo(STRETCHES);
        job.cancel().get();
    }

    /**
     * {@link #CLICKS_PER_STRETCH} new clicks over seven campaigns and three hours, with a copy of
     * an earlier click (of this stretch or an earlier one) after every fifth.
     */
    private static List<Click> stretch(int stretch, List<Click> earlier) {
        List<Click> clicks = new ArrayList<>();
        for (int i = 0; i < CLICKS_PER_STRETCH; i++) {
            long at = DAY.toEpochMilli() + (long) ((i * 7_919L + stretch * 104_729L) % 10_800_000L);
            clicks.add(new Click("k-" + stretch + "-" + i, "campaign-" + (i % 7), at));
            if (i % 5 == 4) {
                List<Click> pool = earlier.isEmpty() ? clicks : earlier;
                clicks.add(pool.get((i * 31) % pool.size()));
            }
        }
        return clicks;
    }

    private static void publish(String kafka, String topic, List<Click> clicks) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (Click click : clicks) {
            records.add(
                    new ProducerRecord<>(
                            topic,
                            click.clickId().getBytes(StandardCharsets.UTF_8),
                            click.line().getBytes(StandardCharsets.UTF_8)));
        }
        // not a click: skipped and counted, the job goes on
        records.add(
                new ProducerRecord<>(topic, null, "not a click".getBytes(StandardCharsets.UTF_8)));
        KafkaTopics.send(kafka, records);
    }

    /** campaign|hour → distinct click ids. */
    private static Map<String, Long> distinctCounts(List<Click> clicks) {
        Map<String, Click> first = new HashMap<>();
        for (Click click : clicks) {
            first.putIfAbsent(click.clickId(), click);
        }
        Map<String, Long> counts = new TreeMap<>();
        for (Click click : first.values()) {
            CampaignHour key = CampaignHour.of(click);
            counts.merge(key.campaignId() + "|" + key.hour(), 1L, Long::sum);
        }
        return counts;
    }

    private static Map<String, Long> counts(PostgresEndpoint db, String table) throws Exception {
        Map<String, Long> counts = new TreeMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT campaign_id, hour, clicks FROM " + table)) {
            while (rs.next()) {
                Instant hour = rs.getObject(2, OffsetDateTime.class).toInstant();
                counts.put(rs.getString(1) + "|" + hour, rs.getLong(3));
            }
        } catch (SQLException e) {
            if (!"42P01".equals(e.getSQLState())) {
                throw e;
            }
            // the sink creates its tables when the job is built
        }
        return counts;
    }
}
