package io.effonce.cdc;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger relay: Debezium's embedded engine (PostgreSQL connector, pgoutput, {@code
 * public.payments} only) publishing every committed change to Kafka, at-least-once. {@link
 * #start(RelayOptions)} checks the database and Kafka, creates the topic if missing, starts the
 * engine and returns once the connector task runs (its slot exists); {@link #close()} stops it
 * cleanly, committing what Kafka acknowledged. Positions live in the configured offset store, so a
 * new relay with the same store and slot resumes where the last one committed; everything after
 * that is sent again.
 */
public final class LedgerRelay implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerRelay.class);

    private final RelayOptions options;
    private final RelayMetrics metrics = new RelayMetrics();
    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private Producer<byte[], byte[]> producer;
    private DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
    private ExecutorService runner;
    private HealthLog health;
    private RelayMetricsEndpoint metricsEndpoint;

    private LedgerRelay(RelayOptions options) {
        this.options = options;
    }

    /** Runs the relay until it fails or the process is stopped; see {@link RelayCli}. */
    public static void main(String[] args) {
        int code =
                RelayCli.run(
                        args,
                        System.getenv(),
                        new PrintWriter(System.out, true),
                        new PrintWriter(System.err, true));
        System.exit(code);
    }

    /**
     * The Debezium engine's properties the relay would run with, decided by the same preflight
     * checks of the database: for a bare engine with the relay's settings (the relay benchmark's
     * baseline).
     */
    public static Properties engineProperties(RelayOptions options) {
        return EngineConfig.properties(options, Preflight.check(options));
    }

    /**
     * Starts a relay; throws {@link RelayStartupException} saying why and how to fix it if the
     * database, Kafka or the engine cannot start.
     */
    public static LedgerRelay start(RelayOptions options) {
        options.validate();
        options.streamFrom(LedgerHosts.primary(options));
        Preflight.Findings findings = Preflight.check(options);
        List<Integer> partitions = KafkaSetup.prepareTopic(options);
        LedgerRelay relay = new LedgerRelay(options);
        try {
            relay.startEngine(findings, partitions);
        } catch (RuntimeException e) {
            relay.close();
            throw e;
        }
        return relay;
    }

    private void startEngine(Preflight.Findings findings, List<Integer> partitions) {
        producer = new KafkaProducer<>(KafkaSetup.producerConfig(options));
        engine =
                DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                        .using(EngineConfig.properties(options, findings))
                        .notifying(new KafkaPublisher(producer, options, partitions, metrics))
                        .using(
                                new DebeziumEngine.ConnectorCallback() {
                                    @Override
                                    public void taskStarted() {
                                        started.countDown();
                                    }
                                })
                        .using(
                                (success, message, error) -> {
                                    if (!success || error != null) {
                                        failure.compareAndSet(
                                                null,
                                                error != null
                                                        ? error
                                                        : new IllegalStateException(message));
                                    }
                                    started.countDown();
                                    stopped.countDown();
                                })
                        .build();
        runner =
                Executors.newSingleThreadExecutor(
                        r -> new Thread(r, "relay-engine-" + options.topicPrefix));
        runner.execute(engine);
        try {
            started.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RelayStartupException("interrupted while the engine started", e);
        }
        if (failure.get() != null) {
            throw new RelayStartupException(
                    "the relay did not start: " + RelayErrors.explain(failure.get(), options),
                    failure.get());
        }
        health = new HealthLog(metrics, options.healthInterval);
        if (options.metricsPort != null) {
            metricsEndpoint = RelayMetricsEndpoint.start(options, metrics);
        }
        LOG.info("Relay running: {} -> {} ({})", options.slot, options.topic(), options);
    }

    /** Counters a test or a health check can read. */
    public RelayMetrics metrics() {
        return metrics;
    }

    /** The port of its metrics endpoint, if {@code --metrics-port} asked for one. */
    public OptionalInt metricsPort() {
        return metricsEndpoint == null
                ? OptionalInt.empty()
                : OptionalInt.of(metricsEndpoint.port());
    }

    /** The options this relay runs with. */
    public RelayOptions options() {
        return options;
    }

    /** The error that stopped the engine, if it stopped by itself. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure.get());
    }

    /** Whether the engine still runs. */
    public boolean isRunning() {
        return stopped.getCount() > 0;
    }

    /** Blocks until the engine stops; returns the error that stopped it, if any. */
    public Optional<Throwable> awaitTermination() throws InterruptedException {
        stopped.await();
        return failure();
    }

    /** Stops the engine (committing what Kafka acknowledged) and closes the producer. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (engine != null && isRunning()) {
            try {
                engine.close();
            } catch (IOException | IllegalStateException e) {
                LOG.warn("The engine did not close cleanly", e); // e.g. it stopped meanwhile
            }
        }
        if (runner != null) {
            runner.shutdown();
            try {
                if (!runner.awaitTermination(30, TimeUnit.SECONDS)) {
                    LOG.warn("The engine thread did not end within 30 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (health != null) {
            health.close();
        }
        if (metricsEndpoint != null) {
            metricsEndpoint.close();
        }
        if (producer != null) {
            producer.close();
        }
        LOG.info("Relay stopped: {}", metrics);
    }
}
