package io.effonce.job.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.dedup.LateCopy;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Late copies cross the network to the late_events writer: their type must be a Flink POJO (no Kryo
 * fallback) and survive a serializer round trip, including the Long.MIN_VALUE markers.
 */
class LateCopyTypeTest {

    @Test
    void lateCopyIsAPojoAndRoundTripsThroughItsSerializer() throws Exception {
        TypeInformation<LateCopy<Change>> type = LateCopy.typeInfo(DedupHarnesses.CHANGE_TYPE);
        assertThat(type).isInstanceOf(PojoTypeInfo.class);
        TypeSerializer<LateCopy<Change>> serializer =
                type.createSerializer(new SerializerConfigImpl());

        LateCopy<Change> copy =
                new LateCopy<>(
                        new Change("pay_7:SUCCEEDED", "m1", 3_000),
                        1_000L,
                        Long.MIN_VALUE,
                        7_201_001L);
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(copy, out);
        LateCopy<Change> back =
                serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));

        assertThat(back).isEqualTo(copy);
        assertThat(serializer.copy(copy)).isEqualTo(copy);
    }
}
