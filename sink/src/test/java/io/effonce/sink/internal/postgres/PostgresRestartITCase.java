package io.effonce.sink.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.StoredRow;
import io.effonce.sink.testutils.Claims;
import io.effonce.sink.testutils.TestKey;
import io.effonce.sink.testutils.TestRows;
import io.effonce.sink.testutils.TestTotal;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** PostgreSQL restarts while the sink writes: every acknowledged write is there afterwards. */
@ExtendWith(PostgresExtension.class)
class PostgresRestartITCase {

    @Test
    void aDatabaseRestartDuringWritesLosesNoAcknowledgedWrite(
            PostgresEndpoint db, EmbeddedPostgres server) throws Exception {
        TotalsTable<TestKey> table = new TotalsTable<>(db, TestRows.MAPPING);
        table.truncate();
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .table("merchant_daily_totals")
                        .build()
                        .toBuilder()
                        .maxRetries(30)
                        .retryBackoff(Duration.ofMillis(100))
                        .build();
        Map<TestKey, Long> acknowledged = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();

        try (PostgresSinkStore<TestKey, TestTotal> store =
                new PostgresSinkStore<>(config, TestRows.MAPPING)) {
            Claims.take(store, new KeyGroupSpan(0, 127), "job", "writer");
            CompletableFuture<Void> writer =
                    CompletableFuture.runAsync(
                            () -> {
                                for (long i = 0; !stop.get(); i++) {
                                    TestKey key =
                                            new TestKey("m" + i, LocalDate.of(2026, 11, 29), "EUR");
                                    store.write(
                                            List.of(
                                                    new StoredRow<>(
                                                            key,
                                                            new TestTotal(i, 1),
                                                            KeyGroupRangeAssignment
                                                                    .assignToKeyGroup(key, 128),
                                                            1)));
                                    acknowledged.put(key, i);
                                }
                            });
            await("200 acknowledged writes")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> acknowledged.size() >= 200);
            server.restart();
            int afterRestart = acknowledged.size();
            await("200 more acknowledged writes after the restart, or the writer ended")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> acknowledged.size() >= afterRestart + 200 || writer.isDone());
            stop.set(true);
            writer.join(); // rethrows if a write failed for good
        }
        Map<TestKey, Long> stored = table.totals();
        assertThat(stored).containsAllEntriesOf(acknowledged);
        assertThat(acknowledged.size()).isGreaterThan(400);
    }
}
