package io.effonce.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.dedup.LateCopy;
import io.effonce.job.decode.DeadLetter;
import io.effonce.job.decode.LedgerRecord;
import io.effonce.job.decode.PaymentChange;
import io.effonce.job.sidetables.LateEvent;
import io.effonce.sink.FlushableSinkOptions;
import io.effonce.sink.SinkChange;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * No type of the job falls back to Kryo: with generic types switched off, as in
 * deploy/flink-conf/config.yaml, the whole graph builds, and every type that enters state or
 * crosses the network has a serializer of its own that reads back what it wrote. A Kryo fallback
 * would make the next upgrade unable to read its savepoint.
 */
class NoGenericTypesTest {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    private static final PaymentChange CHANGE =
            new PaymentChange(
                    "pay_7", "m1", 3_000, "EUR", "SUCCEEDED", 1_764_410_400_000L, DAY, "t", 2, 77);

    @Test
    void theWholeGraphBuildsWithGenericTypesOff() {
        Configuration config = new Configuration();
        config.set(PipelineOptions.GENERIC_TYPES, false);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(10));
        config.set(JobOptions.KAFKA_BOOTSTRAP, "localhost:9");
        config.set(JobOptions.PG_URL, "jdbc:postgresql://localhost:9/ledger");
        // No database to number the deployment: the graph alone is under test.
        config.set(FlushableSinkOptions.REQUIRE_DEPLOYMENT_NUMBER, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        LedgerPipeline.build(env, config, LedgerTotalsJob.endpoints(config));
        assertThat(env.getStreamGraph().getJobGraph().getNumberOfVertices()).isPositive();
    }

    @Test
    void everyStateAndNetworkTypeRoundTripsWithoutKryo() throws Exception {
        roundTrip(TypeInformation.of(PaymentChange.class), CHANGE);
        roundTrip(TypeInformation.of(MerchantDayKey.class), CHANGE.dayKey());
        roundTrip(TypeInformation.of(DailyTotal.class), new DailyTotal(3_000, 1));
        roundTrip(
                TypeInformation.of(new TypeHint<SinkChange<MerchantDayKey, DailyTotal>>() {}),
                SinkChange.upsert(CHANGE.dayKey(), new DailyTotal(3_000, 1)));
        roundTrip(
                TypeInformation.of(new TypeHint<SinkChange<MerchantDayKey, DailyTotal>>() {}),
                SinkChange.<MerchantDayKey, DailyTotal>retire(CHANGE.dayKey()));
        roundTrip(TypeInformation.of(LedgerRecord.class), LedgerRecord.of(CHANGE));
        roundTrip(TypeInformation.of(LedgerRecord.class), LedgerRecord.heartbeat(5L));
        DeadLetter dead = new DeadLetter("t", 1, 2, "not-json", "x");
        roundTrip(TypeInformation.of(LedgerRecord.class), LedgerRecord.of(dead));
        roundTrip(TypeInformation.of(DeadLetter.class), dead);
        roundTrip(TypeInformation.of(LateEvent.class), new LateEvent(CHANGE, 10, Long.MIN_VALUE));
        roundTrip(
                TypeInformation.of(new TypeHint<LateCopy<PaymentChange>>() {}),
                new LateCopy<>(CHANGE, CHANGE.eventTimeMillis(), 10, 20));
    }

    /** The check itself works: a type Flink cannot analyse is refused, not silently Kryo'd. */
    @Test
    void aTypeThatWouldFallBackToKryoIsRefused() {
        assertThatThrownBy(() -> serializer(TypeInformation.of(List.class)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("Generic types have been disabled");
    }

    private static <T> void roundTrip(TypeInformation<T> type, T value) throws Exception {
        TypeSerializer<T> serializer = serializer(type);
        assertThat(serializer).as("%s", type).isNotInstanceOf(KryoSerializer.class);
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(value, out);
        T back = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertThat(back).as("%s", type).isEqualTo(value);
    }

    private static <T> TypeSerializer<T> serializer(TypeInformation<T> type) {
        SerializerConfigImpl config = new SerializerConfigImpl();
        config.setGenericTypes(false);
        return type.createSerializer(config);
    }
}
