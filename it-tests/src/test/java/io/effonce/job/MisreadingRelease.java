package io.effonce.job;

import io.effonce.job.decode.ChangeDecoder;
import io.effonce.job.decode.LedgerRecord;
import io.effonce.job.decode.LedgerRecordDeserializer;
import io.effonce.job.decode.PaymentChange;
import java.io.IOException;
import java.time.ZoneId;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A release with a bug, for the soak's rollback of a bad deploy: it reads every merchant id with a
 * prefix, so each total it writes is under a key the job never produces, and the rollback to the
 * savepoint it started from must remove them all (the restore flush's delete step). Its graph and
 * uids are the job's, so it restores the job's savepoint, and the job restores the same one after
 * it. It writes no side table: what it leaves behind is in the totals table alone.
 */
public final class MisreadingRelease {

    /** What the bug puts before every merchant id. */
    public static final String PREFIX = "misread-";

    private MisreadingRelease() {}

    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Configuration config = JobConfiguration.merge(env.getConfiguration(), args);
        env.configure(config);
        ChangeDecoder decoder =
                new ChangeDecoder(
                        ZoneId.of(config.get(JobOptions.ZONE)),
                        config.get(JobOptions.DEAD_LETTER_MAX_CHARS),
                        config.get(JobOptions.EVENT_TIME_TOLERANCE));
        LedgerRecordDeserializer decoding =
                new LedgerRecordDeserializer(decoder, config.get(JobOptions.EVENT_TIME_TOLERANCE));
        LedgerPipeline.build(
                env,
                config,
                new LedgerPipeline.Endpoints(
                        LedgerTotalsJob.kafkaSource(config)
                                .setDeserializer(new Misreading(decoding))
                                .build(),
                        LedgerTotalsJob.endpoints(config).totals(),
                        new DiscardingSink<>(),
                        new DiscardingSink<>()));
        env.execute("effonce ledger totals, a release that misreads merchant ids");
    }

    /** The job's decoding, with the bug after it. */
    private static final class Misreading
            implements KafkaRecordDeserializationSchema<LedgerRecord> {

        private static final long serialVersionUID = 1L;

        private final LedgerRecordDeserializer decoding;

        Misreading(LedgerRecordDeserializer decoding) {
            this.decoding = decoding;
        }

        @Override
        public void open(DeserializationSchema.InitializationContext context) throws Exception {
            decoding.open(context);
        }

        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<LedgerRecord> out)
                throws IOException {
            decoding.deserialize(
                    record,
                    new Collector<>() {
                        @Override
                        public void collect(LedgerRecord decoded) {
                            out.collect(misread(decoded));
                        }

                        @Override
                        public void close() {}
                    });
        }

        private static LedgerRecord misread(LedgerRecord decoded) {
            PaymentChange c = decoded.change();
            if (c == null) {
                return decoded;
            }
            PaymentChange wrong =
                    new PaymentChange(
                            c.paymentId(),
                            PREFIX + c.merchantId(),
                            c.amount(),
                            c.currency(),
                            c.state(),
                            c.eventTimeMillis(),
                            c.day(),
                            c.topic(),
                            c.partition(),
                            c.offset());
            return new LedgerRecord(
                    wrong, decoded.deadLetter(), decoded.heartbeatMillis(), decoded.snapshotRow());
        }

        @Override
        public TypeInformation<LedgerRecord> getProducedType() {
            return decoding.getProducedType();
        }
    }
}
