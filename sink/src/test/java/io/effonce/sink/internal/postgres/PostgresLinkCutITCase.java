package io.effonce.sink.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.jdbc.RetryingSession;
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
import io.effonce.testing.faults.PostgresLinkCut;
import io.effonce.testing.junit.PostgresExtension;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A writer cut from PostgreSQL between its fence check ({@code FOR SHARE}) and its COMMIT: the
 * server keeps the session idle in transaction, holding the fence rows, and the next attempt's
 * takeover ({@code FOR UPDATE}) must wait for it. Without bounds it would wait until TCP notices,
 * about 2 h 11 min; the sink's sessions end such a transaction after {@code
 * sink.idle-in-transaction-timeout} (20 s unless configured; here {@link #IDLE_BOUND}).
 */
@ExtendWith(PostgresExtension.class)
class PostgresLinkCutITCase {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresLinkCutITCase.class);
    private static final KeyGroupSpan SPAN = new KeyGroupSpan(0, 127);
    private static final Duration AWAIT = Duration.ofMinutes(3);
    private static final Duration IDLE_BOUND = Duration.ofSeconds(4);

    @Test
    void eachSessionCarriesTheConfiguredIdleInTransactionBound(PostgresEndpoint db) {
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .table("merchant_daily_totals")
                        .build()
                        .toBuilder()
                        .idleInTransactionTimeout(IDLE_BOUND)
                        .build();
        try (RetryingSession session = new RetryingSession(config.session())) {
            String bound =
                    session.inTransaction(
                            "Reading the session's bound",
                            c -> {
                                try (Statement s = c.createStatement();
                                        ResultSet rs =
                                                s.executeQuery(
                                                        "SELECT current_setting("
                                                                + "'idle_in_transaction_session_timeout')")) {
                                    rs.next();
                                    return rs.getString(1);
                                }
                            });
            assertThat(bound).isEqualTo("4s");
        }
    }

    @Test
    void theNextTakeoverWaitsForACutOffWriterOnlyUntilTheServerEndsItsTransaction(
            PostgresEndpoint db) throws Exception {
        new TotalsTable<>(db, TestRows.MAPPING).truncate();
        URI server = URI.create(db.jdbcUrl().substring("jdbc:".length()));
        PostgresStoreConfig direct =
                PostgresStoreConfig.builder()
                        .url(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .table("merchant_daily_totals")
                        .build();
        try (PostgresLinkCut link = PostgresLinkCut.to(server.getHost(), server.getPort());
                var cutOff =
                        new PostgresSinkStore<>(
                                PostgresStoreConfig.builder()
                                        .url(link.jdbcUrl(db.jdbcUrl()))
                                        .username(db.user())
                                        .password(db.password())
                                        .table("merchant_daily_totals")
                                        .build()
                                        .toBuilder()
                                        .idleInTransactionTimeout(IDLE_BOUND)
                                        .build(),
                                TestRows.MAPPING)) {
            Claims.take(cutOff, SPAN, "run", "attempt 0");
            link.cutAfter(sql -> sql.contains("sink_fences") && sql.contains("FOR SHARE"));
            CompletableFuture<Void> write = CompletableFuture.runAsync(() -> cutOff.write(rows()));
            assertThat(link.awaitCut(AWAIT))
                    .as("the link was cut after the writer's fence check, within %s", AWAIT)
                    .isTrue();
            assertThat(sessionsIdleInTransaction(db))
                    .as("PostgreSQL holds the cut-off writer's transaction open")
                    .isEqualTo(1);

            long start = System.nanoTime();
            try (PostgresSinkStore<TestKey, TestTotal> next =
                    new PostgresSinkStore<>(direct, TestRows.MAPPING)) {
                CompletableFuture<Takeover> takeover =
                        CompletableFuture.supplyAsync(
                                () ->
                                        next.takeOwnership(
                                                SPAN,
                                                new Claim(
                                                        AttemptId.of("run", "attempt 1", 0, 1, 1),
                                                        OptionalLong.empty()),
                                                found -> TakeoverTerms.TAKE));
                await("the next attempt's takeover, behind the cut-off writer's locks")
                        .atMost(AWAIT)
                        .until(takeover::isDone);
                Duration waited = Duration.ofNanos(System.nanoTime() - start);
                LOG.info("The takeover waited {} ms for the cut-off writer", waited.toMillis());
                assertThat(takeover.join().taken()).isTrue();
                assertThat(sessionsIdleInTransaction(db))
                        .as("the server ended the cut-off transaction and freed its locks")
                        .isZero();
            }

            link.dropClients();
            await("the cut-off writer's write to end").atMost(AWAIT).until(write::isDone);
            assertThat(write)
                    .as("it reconnects, finds the range taken, and stops")
                    .isCompletedExceptionally();
            try {
                write.join();
            } catch (CompletionException e) {
                assertThat(e.getCause()).isInstanceOf(FencedException.class);
            }
            assertThat(new TotalsTable<>(db, TestRows.MAPPING).totals())
                    .as("nothing of the cut-off write landed")
                    .isEmpty();
        }
    }

    private static long sessionsIdleInTransaction(PostgresEndpoint db) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(*) FROM pg_stat_activity WHERE datname ="
                                        + " current_database() AND state = 'idle in transaction'"
                                        + " AND application_name = 'effonce-sink'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static List<StoredRow<TestKey, TestTotal>> rows() {
        TestKey key = new TestKey("m1", LocalDate.of(2026, 11, 29), "EUR");
        return List.of(
                new StoredRow<>(
                        key,
                        new TestTotal(12_000, 4),
                        KeyGroupRangeAssignment.assignToKeyGroup(key, 128),
                        1));
    }
}
