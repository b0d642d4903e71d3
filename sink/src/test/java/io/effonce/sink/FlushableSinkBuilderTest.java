package io.effonce.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.testutils.InMemorySinkStore;
import io.effonce.sink.testutils.InMemoryTable;
import io.effonce.sink.testutils.TestKey;
import io.effonce.sink.testutils.TestTotal;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/**
 * Every refusal of the public builder, through the public face only: each names what is wrong, the
 * option's key where there is one, and the value it was given; the bounds themselves are accepted.
 */
class FlushableSinkBuilderTest {

    private static FlushableSink.Builder<TestKey, TestTotal> complete() {
        return FlushableSink.<TestKey, TestTotal>builder()
                .store(InMemorySinkStore.factory(new InMemoryTable<>()))
                .valueType(TypeInformation.of(TestTotal.class));
    }

    @Test
    void aSinkWithoutItsStoreOrItsValueTypeIsRefusedSayingWhatIsMissing() {
        assertThatThrownBy(
                        () ->
                                FlushableSink.<TestKey, TestTotal>builder()
                                        .valueType(TypeInformation.of(TestTotal.class))
                                        .build())
                .isInstanceOf(NullPointerException.class)
                .hasMessage("store(...) is required: where the sink writes");
        assertThatThrownBy(
                        () ->
                                FlushableSink.<TestKey, TestTotal>builder()
                                        .store(InMemorySinkStore.factory(new InMemoryTable<>()))
                                        .build())
                .isInstanceOf(NullPointerException.class)
                .hasMessage("valueType(...) is required: the state's value type");
        assertThat(complete().build()).isNotNull();
    }

    /**
     * Building touches no database, as Kafka's and JDBC's sinks do not: the deployment is numbered
     * once, when the sink first joins a graph, and every operator of the sink carries that run.
     */
    @Test
    void buildingNumbersNoDeploymentTheFirstOperatorDoesOnce() {
        AtomicInteger numbered = new AtomicInteger();
        SinkStoreFactory<TestKey, TestTotal> stores =
                InMemorySinkStore.factory(new InMemoryTable<>());
        SinkStoreFactory<TestKey, TestTotal> counting =
                new SinkStoreFactory<>() {
                    @Override
                    public SinkStore<TestKey, TestTotal> create() {
                        return stores.create();
                    }

                    @Override
                    public OptionalLong numberDeployment() {
                        return OptionalLong.of(numbered.incrementAndGet());
                    }
                };
        FlushableSink<TestKey, TestTotal> sink =
                FlushableSink.<TestKey, TestTotal>builder()
                        .store(counting)
                        .valueType(TypeInformation.of(TestTotal.class))
                        .build();
        assertThat(numbered).hasValue(0);
        sink.createOperator();
        sink.createOperator();
        assertThat(numbered).hasValue(1);
    }

    @Test
    void aBatchSizeOutsideOneTo100000IsRefusedNamingTheOptionAndTheValue() {
        for (int refused : new int[] {0, -1, 100_001}) {
            assertThatThrownBy(() -> complete().batchSize(refused).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("sink.batch-size must be between 1 and 100000, was " + refused);
        }
        assertThat(complete().batchSize(1).build()).isNotNull();
        assertThat(complete().batchSize(100_000).build()).isNotNull();
    }

    @Test
    void aFlushIntervalNotAboveZeroOrAboveTenMinutesIsRefusedNamingTheOptionAndTheValue() {
        for (Duration refused :
                new Duration[] {
                    Duration.ZERO, Duration.ofMillis(-1), Duration.ofMinutes(10).plusMillis(1), null
                }) {
            assertThatThrownBy(() -> complete().flushInterval(refused).build())
                    .as("%s", refused)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "sink.flush-interval must be more than 0 and at most 10 min, was "
                                    + refused);
        }
        assertThat(complete().flushInterval(Duration.ofMillis(1)).build()).isNotNull();
        assertThat(complete().flushInterval(Duration.ofMinutes(10)).build()).isNotNull();
    }

    @Test
    void aNegativeRetentionOfRetiredValuesIsRefusedAndZeroKeepsNone() {
        for (Duration refused : new Duration[] {Duration.ofMillis(-1), null}) {
            assertThatThrownBy(() -> complete().retiredRetention(refused).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "sink.retired-retention must be 0 or more (0 keeps no retired value),"
                                    + " was "
                                    + refused);
        }
        assertThat(complete().retiredRetention(Duration.ZERO).build()).isNotNull();
    }

    @Test
    void aNegativeOwnerLeaseIsRefusedNamingTheOption() {
        for (Duration refused : new Duration[] {Duration.ofMillis(-1), null}) {
            assertThatThrownBy(() -> complete().ownerLease(refused).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "sink.owner-lease must be 0 or more (well above the checkpoint"
                                    + " interval), was "
                                    + refused);
        }
    }

    @Test
    void aMissingProgressRuleOrRestoreFlushPolicyIsRefusedAtOnceNamingIt() {
        assertThatThrownBy(() -> complete().progress(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("progress");
        assertThatThrownBy(() -> complete().restoreFlush(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("restoreFlush");
    }

    /** Options from Flink configuration meet the same checks, under the keys a user wrote. */
    @Test
    void optionsFromConfigurationAreCheckedUnderTheirKeys() {
        Configuration tooLarge = Configuration.fromMap(Map.of("sink.batch-size", "200000"));
        assertThatThrownBy(() -> complete().options(tooLarge).build())
                .hasMessage("sink.batch-size must be between 1 and 100000, was 200000");

        Configuration zero = Configuration.fromMap(Map.of("sink.flush-interval", "0 ms"));
        assertThatThrownBy(() -> complete().options(zero).build())
                .hasMessageStartingWith("sink.flush-interval must be more than 0");

        Configuration unreadable = Configuration.fromMap(Map.of("sink.flush-interval", "soon"));
        assertThatThrownBy(() -> complete().options(unreadable))
                .hasMessageContaining("sink.flush-interval")
                .hasMessageContaining("soon");

        Configuration policy = Configuration.fromMap(Map.of("sink.restore-flush", "SOMETIMES"));
        assertThatThrownBy(() -> complete().options(policy))
                .hasMessageContaining("sink.restore-flush")
                .hasMessageContaining("SOMETIMES");
    }
}
