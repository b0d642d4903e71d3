package io.effonce.job.bench;

import io.effonce.job.LedgerPipeline;
import io.effonce.job.LedgerTotalsJobAccess;
import io.effonce.job.sidetables.SideTables;
import io.effonce.local.PostgresEndpoint;
import io.effonce.sink.store.PostgresStoreConfig;
import io.effonce.sink.store.PostgresTotalsStore;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;

/** The job's real endpoints over a test database, with the source bounded at today's end. */
final class BenchEndpoints {

    private BenchEndpoints() {}

    static LedgerPipeline.Endpoints bounded(ReadableConfig config, PostgresEndpoint db) {
        PostgresStoreConfig postgres =
                PostgresStoreConfig.of(
                        db.jdbcUrl(), db.user(), db.password(), "merchant_daily_totals");
        return new LedgerPipeline.Endpoints(
                LedgerTotalsJobAccess.kafkaSource(config)
                        .setBounded(OffsetsInitializer.latest())
                        .build(),
                PostgresTotalsStore.factory(postgres),
                SideTables.lateEvents(postgres),
                SideTables.deadLetters(postgres));
    }
}
