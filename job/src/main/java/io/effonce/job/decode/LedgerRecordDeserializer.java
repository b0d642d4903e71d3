package io.effonce.job.decode;

import java.time.Duration;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Decodes the relay's Kafka records in the source, so a bad record costs no extra operator. */
public final class LedgerRecordDeserializer
        implements KafkaRecordDeserializationSchema<LedgerRecord> {

    private static final long serialVersionUID = 1L;

    private final ChangeDecoder decoder;
    private final Duration tolerance;
    private transient AheadBurstAlarm aheadBursts;

    public LedgerRecordDeserializer(ChangeDecoder decoder, Duration tolerance) {
        this.decoder = decoder;
        this.tolerance = tolerance;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        aheadBursts =
                new AheadBurstAlarm(
                        tolerance, context.getMetricGroup().counter("eventTimeAheadBursts"));
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<LedgerRecord> out) {
        LedgerRecord decoded =
                decoder.decode(
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        record.timestamp(),
                        record.value());
        if (aheadBursts == null) {
            aheadBursts = new AheadBurstAlarm(tolerance); // used without open(), as in tests
        }
        aheadBursts.observe(record.topic(), record.partition(), decoded);
        if (decoded != null) {
            out.collect(decoded);
        }
    }

    @Override
    public TypeInformation<LedgerRecord> getProducedType() {
        return TypeInformation.of(LedgerRecord.class);
    }
}
