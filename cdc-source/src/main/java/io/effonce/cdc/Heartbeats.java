package io.effonce.cdc;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The relay's heartbeat record, written to every partition of the changes topic whenever Debezium
 * emits a heartbeat: key {@value #KEY}, header {@value #HEADER} = {@code true}, value {@code
 * {"heartbeat":true,"ts_ms":<ms since epoch>,"lsn":<WAL position or null>}}. Every change record
 * that precedes a heartbeat on a partition was committed before {@code ts_ms}, so a consumer can
 * move its event time to {@code ts_ms} when the ledger is quiet.
 */
public final class Heartbeats {

    /** The key of every heartbeat record. */
    public static final String KEY = "__heartbeat";

    /** A header present (value {@code true}) on heartbeat records only. */
    public static final String HEADER = "effonce.heartbeat";

    private static final byte[] KEY_BYTES = KEY.getBytes(StandardCharsets.UTF_8);
    private static final List<Header> HEADERS =
            List.of(new RecordHeader(HEADER, "true".getBytes(StandardCharsets.UTF_8)));

    private Heartbeats() {}

    /** The JSON value of a heartbeat. */
    public static String value(long tsMs, Long lsn) {
        return "{\"heartbeat\":true,\"ts_ms\":" + tsMs + ",\"lsn\":" + lsn + "}";
    }

    static ProducerRecord<byte[], byte[]> record(String topic, int partition, long tsMs, Long lsn) {
        return new ProducerRecord<>(
                topic,
                partition,
                KEY_BYTES,
                value(tsMs, lsn).getBytes(StandardCharsets.UTF_8),
                HEADERS);
    }

    /** The heartbeat's time: Debezium's {@code ts_ms} field, or now if absent. */
    static long timestamp(SourceRecord heartbeat) {
        if (heartbeat.value() instanceof Struct v
                && v.schema().field("ts_ms") != null
                && v.get("ts_ms") instanceof Long ts) {
            return ts;
        }
        return System.currentTimeMillis();
    }

    /** The WAL position in the heartbeat's source offset, or null. */
    static Long lsn(SourceRecord heartbeat) {
        Object lsn = heartbeat.sourceOffset() == null ? null : heartbeat.sourceOffset().get("lsn");
        return lsn instanceof Long l ? l : null;
    }
}
