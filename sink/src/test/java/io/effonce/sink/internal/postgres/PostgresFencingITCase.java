package io.effonce.sink.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.internal.AttemptId;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.FencedException;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.StoredRow;
import io.effonce.sink.internal.Takeover;
import io.effonce.sink.internal.TakeoverTerms;
import io.effonce.sink.testutils.Claims;
import io.effonce.sink.testutils.TestKey;
import io.effonce.sink.testutils.TestRows;
import io.effonce.sink.testutils.TestTotal;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A writer whose key groups were taken over cannot commit, even while it races the takeover. */
@ExtendWith(PostgresExtension.class)
class PostgresFencingITCase {

    private static final KeyGroupSpan SPAN = new KeyGroupSpan(0, 127);
    private static final int KEYS = 50;

    @Test
    void aZombieWriterRacingTheTakeoverNeverCommitsAfterIt(PostgresEndpoint db) throws Exception {
        TotalsTable<TestKey> table = new TotalsTable<>(db, TestRows.MAPPING);
        table.truncate();
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .table("merchant_daily_totals")
                        .build();

        PostgresSinkStore<TestKey, TestTotal> zombie =
                new PostgresSinkStore<>(config, TestRows.MAPPING);
        Claims.take(zombie, SPAN, "job-1", "attempt 0");
        AtomicLong lastCommitted = new AtomicLong();
        AtomicReference<Throwable> zombieFailure = new AtomicReference<>();
        CompletableFuture<Void> zombieLoop =
                CompletableFuture.runAsync(
                        () -> {
                            try {
                                for (long v = 1; ; v++) {
                                    zombie.write(rows(v));
                                    lastCommitted.set(v);
                                }
                            } catch (Throwable t) {
                                zombieFailure.set(t);
                            }
                        });

        await("20 writes committed by the owner")
                .atMost(Duration.ofMinutes(5))
                .until(() -> lastCommitted.get() >= 20);
        Map<TestKey, Long> atTakeover;
        try (PostgresSinkStore<TestKey, TestTotal> successor =
                new PostgresSinkStore<>(config, TestRows.MAPPING)) {
            Takeover takeover =
                    successor.takeOwnership(
                            SPAN,
                            new Claim(
                                    AttemptId.of("job-1", "attempt 1", 0, 1, 1),
                                    OptionalLong.empty()),
                            found -> TakeoverTerms.TAKE);
            atTakeover = table.totals();
            assertThat(takeover.found().ownerRuns()).containsExactly("job-1");

            await("the zombie loop ended").atMost(Duration.ofMinutes(5)).until(zombieLoop::isDone);
            assertThat(zombieFailure.get()).isInstanceOf(FencedException.class);
            assertThat(table.totals())
                    .as("nothing the zombie wrote landed after the takeover")
                    .isEqualTo(atTakeover);
            assertThat(atTakeover.values()).allMatch(v -> v <= lastCommitted.get() * KEYS + KEYS);

            successor.write(rows(1_000_000));
            assertThat(table.totals().values()).allMatch(v -> v >= 1_000_000L * KEYS);
        } finally {
            zombie.close();
        }
    }

    private static List<StoredRow<TestKey, TestTotal>> rows(long version) {
        List<StoredRow<TestKey, TestTotal>> rows = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            TestKey key = new TestKey("m" + k, LocalDate.of(2026, 11, 29), "EUR");
            rows.add(
                    new StoredRow<>(
                            key,
                            new TestTotal(version * KEYS + k, version),
                            org.apache.flink.runtime.state.KeyGroupRangeAssignment.assignToKeyGroup(
                                    key, 128),
                            1));
        }
        return rows;
    }
}
