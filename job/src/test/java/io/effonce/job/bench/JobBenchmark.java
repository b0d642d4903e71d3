package io.effonce.job.bench;

import io.effonce.job.JobOptions;
import io.effonce.job.LedgerPipeline;
import io.effonce.job.testutils.SyntheticLedger;
import io.effonce.job.testutils.TestEndpoints;
import io.effonce.job.testutils.Topics;
import io.effonce.testing.EmbeddedKafka;
import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Records per second through the whole job: a topic pre-filled with changes (10% of them
 * re-delivered copies), RocksDB, checkpoints every 10 s, parallelism 2, the first job in a fresh
 * JVM. Not a test; run it by hand (see job/README.md). Argument: {@code [records=1000000]}.
 */
public final class JobBenchmark {

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        String timers = args.length > 1 ? args[1] : "ROCKSDB";
        try (EmbeddedPostgres pg = EmbeddedPostgres.start();
                EmbeddedKafka kafka = EmbeddedKafka.start()) {
            PostgresEndpoint db = LocalServices.newDatabase(pg.endpoint(), "effonce_bench");
            SchemaTool.applyAll(db);
            String topic = "bench.public.payments";
            Topics.create(kafka.bootstrapServers(), topic, 2);

            // Two changes per payment; then every tenth record is published twice more.
            SyntheticLedger ledger =
                    new SyntheticLedger(records * 9 / 20, Instant.parse("2026-11-01T00:00:00Z"), 7);
            List<SyntheticLedger.Change> stream = new ArrayList<>();
            int copies = 0;
            for (int i = 0; i < ledger.changes().size() && stream.size() < records; i++) {
                stream.add(ledger.changes().get(i));
                if (i % 9 == 0 && stream.size() < records) {
                    stream.add(ledger.changes().get(i));
                    copies++;
                }
            }
            long fill = System.nanoTime();
            Topics.publish(kafka.bootstrapServers(), topic, stream);
            System.out.printf(
                    "topic filled: %,d records in %.1f s%n",
                    stream.size(), (System.nanoTime() - fill) / 1e9);

            Configuration config = new Configuration();
            config.set(JobOptions.KAFKA_BOOTSTRAP, kafka.bootstrapServers());
            config.set(JobOptions.TOPIC, topic);
            config.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
            config.setString("state.backend.rocksdb.timer-service.factory", timers);
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(config);
            env.setParallelism(2);
            env.enableCheckpointing(10_000);
            LedgerPipeline.build(env, config, TestEndpoints.bounded(config, db));

            long start = System.nanoTime();
            env.execute("effonce-job-benchmark");
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf(
                    "settings: %,d records (%,d of them re-delivered copies), parallelism 2,"
                            + " RocksDB (timers in %s), checkpoints every 10 s, embedded Kafka and"
                            + " PostgreSQL, one JVM%n",
                    stream.size(), copies, timers);
            System.out.printf(
                    "job: %,d records in %.1f s = %,.0f records/s (job start to finish)%n",
                    stream.size(), seconds, stream.size() / seconds);
            try (Connection c = db.connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM merchant_daily_totals")) {
                rs.next();
                System.out.printf("merchant-days written: %d%n", rs.getLong(1));
            }
        }
    }
}
