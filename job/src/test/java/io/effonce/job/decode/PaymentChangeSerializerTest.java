package io.effonce.job.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** A change crosses the shuffles unchanged, whatever its strings hold. */
class PaymentChangeSerializerTest {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);

    @Test
    void theChangeTypeUsesIt() {
        TypeSerializer<PaymentChange> serializer =
                TypeInformation.of(PaymentChange.class)
                        .createSerializer(new SerializerConfigImpl());
        assertThat(serializer).isSameAs(PaymentChangeSerializer.INSTANCE);
        assertThat(serializer.snapshotConfiguration().restoreSerializer())
                .isSameAs(PaymentChangeSerializer.INSTANCE);
    }

    @Test
    void everyKindOfStringSurvives() throws Exception {
        PaymentChange[] changes = {
            new PaymentChange("pay_1", "m1", 3_000, "EUR", "SUCCEEDED", 1L, DAY, "payments", 3, 9),
            new PaymentChange(
                    "pay_2", null, 0, null, "VOID", -5L, DAY.minusYears(3000), null, 0, 0),
            new PaymentChange("pay_3", "m-\u00e9\u4e2d", 1, "USD", "PENDING", 7L, DAY, "t", 1, 2),
            // An unpaired surrogate must come back as it went, not as '?'.
            new PaymentChange("p\ud800", "m\udc00x", 1, "GBP", "FAILED", 8L, DAY, "t", 1, 2),
            new PaymentChange("", "", Long.MAX_VALUE, "", "", Long.MIN_VALUE, DAY, "", -1, -1),
            new PaymentChange("x".repeat(300), "\u007f", -1, "ABC", "UNKNOWN", 0, DAY, "t", 1, 1)
        };
        DataOutputSerializer out = new DataOutputSerializer(64);
        for (PaymentChange change : changes) {
            PaymentChangeSerializer.INSTANCE.serialize(change, out);
        }
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        for (PaymentChange change : changes) {
            assertThat(PaymentChangeSerializer.INSTANCE.deserialize(in)).isEqualTo(change);
        }
        assertThat(in.available()).isZero();
    }
}
