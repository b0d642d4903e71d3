package io.effonce.job;

import io.effonce.job.decode.LedgerRecord;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;

/** Opens the job's package-private source builder to tests in other packages. */
public final class LedgerTotalsJobAccess {

    private LedgerTotalsJobAccess() {}

    public static KafkaSourceBuilder<LedgerRecord> kafkaSource(ReadableConfig config) {
        return LedgerTotalsJob.kafkaSource(config);
    }
}
