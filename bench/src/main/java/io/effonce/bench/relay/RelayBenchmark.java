package io.effonce.bench.relay;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.debezium.engine.format.Json;
import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.RelayCli;
import io.effonce.cdc.RelayOptions;
import io.effonce.testing.EmbeddedKafka;
import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.kafka.ConnectWorker;
import io.effonce.testing.kafka.KafkaTopics;
import io.effonce.testing.kafka.LedgerConnector;
import io.effonce.testing.workload.LedgerWorkload;
import io.effonce.testing.workload.WorkloadOptions;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Changes per second from a ledger backlog to Kafka's acknowledgement, beside the raw Debezium
 * engine delivering the same backlog to a consumer that does nothing (Connect records, and JSON
 * records converted by the engine), and beside Debezium's connector on a Kafka Connect worker in
 * its own JVM. Four slots are created before the workload, so each run reads the same committed
 * backlog from the WAL. Throughput is measured from the first to the last change delivered (engine
 * start-up excluded), and printed with the start-up included.
 *
 * <p>Run from the repository root after {@code mvn -B -q -DskipTests install}: {@code java -cp
 * "bench/target/classes:$(cat bench/target/classpath.txt)" io.effonce.bench.relay.RelayBenchmark
 * 200000}
 */
public final class RelayBenchmark {

    /**
     * The Connect tasks' producer as the relay's: Connect's own defaults (one request in flight, no
     * linger, 16 KiB batches) would measure those, not the connector.
     */
    private static final Map<String, String> CONNECT_PRODUCER =
            Map.of(
                    "producer.linger.ms", "5",
                    "producer.batch.size", "262144",
                    "producer.enable.idempotence", "true",
                    "producer.max.in.flight.requests.per.connection", "5",
                    "producer.acks", "all");

    private RelayBenchmark() {}

    public static void main(String[] args) throws Exception {
        long payments = args.length > 0 ? Long.parseLong(args[0]) : 200_000;
        Path dir = Files.createTempDirectory("effonce-relay-bench-");
        try (EmbeddedPostgres pg = EmbeddedPostgres.start();
                EmbeddedKafka kafka = EmbeddedKafka.start()) {
            PostgresEndpoint db = LocalServices.newDatabase(pg.endpoint(), "effonce_bench");
            SchemaTool.applyAll(db);
            List<String> slots = List.of("bench_raw", "bench_json", "bench_relay", "bench_connect");
            try (Connection c = db.connect();
                    Statement s = c.createStatement()) {
                for (String slot : slots) {
                    s.execute(
                            "SELECT pg_create_logical_replication_slot('"
                                    + slot
                                    + "', 'pgoutput')");
                }
            }
            WorkloadReport report =
                    new LedgerWorkload(
                                    WorkloadOptions.builder()
                                            .count(payments)
                                            .scope("bench")
                                            .seed(200)
                                            .batchSize(1000)
                                            .build())
                            .run(db);
            long changes = report.created() + report.stateChanges();
            System.out.printf(
                    "Backlog: %,d payments, %,d changes committed in %.1f s%n",
                    payments, changes, report.elapsedSeconds());

            Result raw = rawEngine(db, kafka, dir, "bench_raw", changes, false);
            Result json = rawEngine(db, kafka, dir, "bench_json", changes, true);
            Result relay = relay(db, kafka, dir, "bench_relay", changes);
            Result connect = connect(db, kafka, dir, "bench_connect", changes);

            System.out.println();
            System.out.println(
                    "Settings: pgoutput, public.payments only, max.batch.size 2048, poll.interval.ms"
                            + " 10, offset flush 1 s (file), heartbeat 1 s; relay: 4 partitions,"
                            + " acks=all, idempotent, linger.ms 5, batch.size 256 KiB, no compression;"
                            + " embedded PostgreSQL 17 and a single KRaft broker on this machine.");
            print("raw engine, Connect records, no-op consumer", raw, changes);
            print("raw engine, JSON records, no-op consumer", json, changes);
            print("relay (JSON to Kafka, acked before marking)", relay, changes);
            print("Debezium on a Kafka Connect worker (JSON)", connect, changes);
            System.out.printf(
                    "Relay / raw Connect: %.1f%%   relay / raw JSON: %.1f%%%n",
                    100.0 * relay.rate(changes) / raw.rate(changes),
                    100.0 * relay.rate(changes) / json.rate(changes));
            System.out.println(
                    "Connect: one distributed worker in its own JVM (-Xmx1g), JsonConverter"
                            + " schemas off, the connector's defaults (max.batch.size 2048), offset"
                            + " flush 1 s, the producer as the relay's (linger.ms 5, batch.size 256"
                            + " KiB, idempotent, 5 in flight, acks=all), the topic's 4 partitions"
                            + " created beforehand; start-up includes the worker's JVM and group"
                            + " join.");
        }
    }

    record Result(long startNanos, long firstNanos, long lastNanos) {
        double rate(long changes) {
            return changes / ((lastNanos - firstNanos) / 1e9);
        }

        double totalSeconds() {
            return (lastNanos - startNanos) / 1e9;
        }
    }

    private static void print(String what, Result r, long changes) {
        System.out.printf(
                "%-46s %,9.0f changes/s first-to-last; %.1f s including start-up%n",
                what, r.rate(changes), r.totalSeconds());
    }

    private static RelayOptions options(
            PostgresEndpoint db, EmbeddedKafka kafka, Path dir, String slot) {
        return RelayCli.parse(
                new String[] {
                    "--db-url", db.jdbcUrl(),
                    "--db-user", db.user(),
                    "--slot", slot,
                    "--topic-prefix", slot,
                    "--kafka-bootstrap", kafka.bootstrapServers(),
                    "--offsets-file", dir.resolve(slot + ".offsets").toString(),
                    "--health-interval", "10s"
                },
                Map.of("EFFONCE_PG_PASSWORD", db.password()));
    }

    private static Result rawEngine(
            PostgresEndpoint db,
            EmbeddedKafka kafka,
            Path dir,
            String slot,
            long changes,
            boolean jsonFormat)
            throws Exception {
        RelayOptions o = options(db, kafka, dir, slot);
        Properties props = LedgerRelay.engineProperties(o);
        props.setProperty("converter.schemas.enable", "false");
        AtomicLong seen = new AtomicLong();
        String topic = o.topic();
        long start = System.nanoTime();
        ExecutorService runner = Executors.newSingleThreadExecutor();
        DebeziumEngine<?> engine;
        if (jsonFormat) {
            engine =
                    DebeziumEngine.create(Json.class)
                            .using(props)
                            .notifying(
                                    (records, committer) -> {
                                        for (var r : records) {
                                            if (topic.equals(r.destination())) {
                                                seen.incrementAndGet();
                                            }
                                            committer.markProcessed(r);
                                        }
                                        committer.markBatchFinished();
                                    })
                            .build();
        } else {
            engine =
                    DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                            .using(props)
                            .notifying(
                                    (List<RecordChangeEvent<SourceRecord>> records,
                                            DebeziumEngine.RecordCommitter<
                                                            RecordChangeEvent<SourceRecord>>
                                                    committer) -> {
                                        for (var r : records) {
                                            if (topic.equals(r.record().topic())) {
                                                seen.incrementAndGet();
                                            }
                                            committer.markProcessed(r);
                                        }
                                        committer.markBatchFinished();
                                    })
                            .build();
        }
        runner.execute(engine);
        try {
            return measure(start, seen::get, changes);
        } finally {
            engine.close();
            runner.shutdown();
        }
    }

    private static Result relay(
            PostgresEndpoint db, EmbeddedKafka kafka, Path dir, String slot, long changes)
            throws Exception {
        long start = System.nanoTime();
        try (LedgerRelay relay = LedgerRelay.start(options(db, kafka, dir, slot))) {
            return measure(start, () -> relay.metrics().changesPublished(), changes);
        }
    }

    /**
     * Debezium's PostgreSQL connector on a Kafka Connect worker (distributed mode, its own JVM), as
     * users who outgrow one machine run it: changes counted as they land on the topic.
     */
    private static Result connect(
            PostgresEndpoint db, EmbeddedKafka kafka, Path dir, String slot, long changes)
            throws Exception {
        String topic = slot + ".public.payments";
        KafkaTopics.create(kafka.bootstrapServers(), topic, 4);
        Map<String, String> c = LedgerConnector.config(db, slot, dir);
        c.put("snapshot.mode", "no_data");
        c.put("heartbeat.interval.ms", "1000");
        long start = System.nanoTime();
        try (ConnectWorker worker =
                        ConnectWorker.start(
                                kafka.bootstrapServers(),
                                slot + "-connect",
                                false,
                                Duration.ofSeconds(1),
                                dir,
                                CONNECT_PRODUCER,
                                List.of("-Xmx1g"));
                KafkaConsumer<byte[], byte[]> consumer =
                        KafkaTopics.consumer(kafka.bootstrapServers())) {
            worker.putConnector(slot, c);
            List<TopicPartition> partitions = KafkaTopics.partitions(consumer, topic);
            return measure(
                    start,
                    () ->
                            consumer.endOffsets(partitions).values().stream()
                                    .mapToLong(Long::longValue)
                                    .sum(),
                    changes);
        }
    }

    private static Result measure(long start, LongSupplier count, long changes)
            throws InterruptedException {
        long first = 0;
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (count.getAsLong() < changes) {
            if (first == 0 && count.getAsLong() > 0) {
                first = System.nanoTime();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Only " + count.getAsLong() + " of " + changes + " changes in 10 minutes");
            }
            Thread.sleep(10); // a sampling period, not synchronisation
        }
        return new Result(start, first == 0 ? start : first, System.nanoTime());
    }
}
