package io.effonce.job.sidetables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.job.decode.PaymentChange;
import io.effonce.job.testutils.SideTableRows;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.PostgresExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A side-table row PostgreSQL refuses for its content does not fail the job: it is found by
 * splitting the batch, logged and counted, and every other row is written.
 */
@ExtendWith(PostgresExtension.class)
class SideTablesITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(1);

    @BeforeEach
    void emptyLateEvents(PostgresEndpoint db) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("TRUNCATE late_events");
        }
    }

    @Test
    void aLateEventPostgresRefusesIsSetAsideAndTheOthersAreWritten(PostgresEndpoint db)
            throws Exception {
        List<LateEvent> late = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            late.add(late("pay_" + i, "m1"));
        }
        // Past the decoder this cannot happen; here it stands for any row the table refuses.
        late.add(25, late("pay_nul", "m\u0000x"));

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.fromData(late, TypeInformation.of(LateEvent.class))
                .sinkTo(
                        SideTables.lateEvents(
                                PostgresStoreConfig.builder()
                                        .url(db.jdbcUrl())
                                        .username(db.user())
                                        .password(db.password())
                                        .table("late_events")
                                        .build()));
        env.execute("side-tables-refused-row");

        assertThat(SideTableRows.lateEventIds(db)).hasSize(50).doesNotContain("pay_nul:SUCCEEDED");
    }

    /**
     * Two late changes a second, no checkpoint, no end of input, far from a full batch: the rows
     * still show within about a second (the writer's flush timer). Without it they would wait for a
     * checkpoint barrier that never comes here.
     */
    @Test
    void lateEventsShowWithinASecondWithoutACheckpoint(PostgresEndpoint db) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataGeneratorSource<LateEvent> slow =
                new DataGeneratorSource<>(
                        i -> late("pay_slow_" + i, "m1"),
                        Long.MAX_VALUE,
                        RateLimiterStrategy.perSecond(2),
                        TypeInformation.of(LateEvent.class));
        env.fromSource(slow, WatermarkStrategy.noWatermarks(), "two late changes a second")
                .sinkTo(
                        SideTables.lateEvents(
                                PostgresStoreConfig.builder()
                                        .url(db.jdbcUrl())
                                        .username(db.user())
                                        .password(db.password())
                                        .table("late_events")
                                        .build()));
        JobClient job = env.executeAsync("side-tables-flush-timer");
        try {
            await("late_events rows written with no checkpoint and no full batch")
                    .atMost(Duration.ofMinutes(2))
                    .until(
                            () ->
                                    SideTableRows.lateEventIds(db).stream()
                                                    .filter(id -> id.startsWith("pay_slow_"))
                                                    .count()
                                            >= 3);
        } finally {
            job.cancel().get();
        }
    }

    private static LateEvent late(String paymentId, String merchantId) {
        PaymentChange change =
                new PaymentChange(
                        paymentId,
                        merchantId,
                        100,
                        "EUR",
                        "SUCCEEDED",
                        1_764_410_400_000L,
                        LocalDate.of(2025, 11, 29),
                        "t",
                        0,
                        0);
        return new LateEvent(change, Long.MIN_VALUE, Long.MIN_VALUE);
    }
}
