package io.effonce.job.decode;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Decodes the relay's Kafka records in the source, so a bad record costs no extra operator. */
public final class LedgerRecordDeserializer
        implements KafkaRecordDeserializationSchema<LedgerRecord> {

    private static final long serialVersionUID = 1L;

    private final ChangeDecoder decoder;

    public LedgerRecordDeserializer(ChangeDecoder decoder) {
        this.decoder = decoder;
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
        if (decoded != null) {
            out.collect(decoded);
        }
    }

    @Override
    public TypeInformation<LedgerRecord> getProducedType() {
        return TypeInformation.of(LedgerRecord.class);
    }
}
