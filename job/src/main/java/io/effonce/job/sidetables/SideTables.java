package io.effonce.job.sidetables;

import io.effonce.job.decode.DeadLetter;
import io.effonce.job.decode.PaymentChange;
import io.effonce.sink.PostgresStoreConfig;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** The side tables' sinks; the table names are fixed by deploy/sql/sink.sql. */
public final class SideTables {

    /** 9999-12-31T00:00:00Z, far inside what PostgreSQL's timestamptz holds. */
    private static final long MAX_TIMESTAMP_MILLIS = 253_402_214_400_000L;

    private SideTables() {}

    public static SideTableSink<LateEvent> lateEvents(PostgresStoreConfig connection) {
        return new SideTableSink<>(
                connection.toBuilder().table("late_events").build(),
                "INSERT INTO late_events (event_id, merchant_id, day, currency, amount, event_time,"
                        + " watermark, floor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                        + " ON CONFLICT (event_id) DO NOTHING",
                (s, late) -> {
                    PaymentChange c = late.change();
                    s.setString(1, c.eventId());
                    s.setString(2, c.merchantId());
                    s.setObject(3, c.day());
                    s.setString(4, c.currency());
                    s.setLong(5, c.amount());
                    s.setObject(6, time(c.eventTimeMillis()));
                    s.setObject(
                            7, late.watermark() == Long.MIN_VALUE ? null : time(late.watermark()));
                    s.setObject(8, late.floor() == Long.MIN_VALUE ? null : time(late.floor()));
                },
                null,
                "lateEventsWritten");
    }

    public static SideTableSink<DeadLetter> deadLetters(PostgresStoreConfig connection) {
        return new SideTableSink<>(
                connection.toBuilder().table("dead_letters").build(),
                "INSERT INTO dead_letters (topic, kafka_partition, kafka_offset, reason, raw_value)"
                        + " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (s, d) -> {
                    s.setString(1, d.topic());
                    s.setInt(2, d.partition());
                    s.setLong(3, d.offset());
                    s.setString(4, d.reason());
                    s.setString(5, d.rawValue());
                },
                d ->
                        new DeadLetter(
                                d.topic(),
                                d.partition(),
                                d.offset(),
                                "unstorable dead letter; its first reason was logged",
                                null),
                "deadLettersWritten");
    }

    private static OffsetDateTime time(long millis) {
        // A watermark can be near Long.MAX_VALUE (end of input); keep it within timestamptz.
        long clamped = Math.min(millis, MAX_TIMESTAMP_MILLIS);
        return OffsetDateTime.ofInstant(Instant.ofEpochMilli(clamped), ZoneOffset.UTC);
    }
}
