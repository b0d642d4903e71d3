package io.effonce.bench;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The recovery benchmark's input: {@code keys} merchant-day keys on one UTC day (merchants {@code
 * r0 … r<keys-1>}, EUR), each first given one payment — an insert already SUCCEEDED, so one record
 * builds one key of state — then slices of further payments on keys drawn at random. Event time
 * rises through the first half of the day and never leaves it, so the day stays open and every key
 * stays in the sink's state. Keeps the expected totals as it publishes.
 */
final class RecoveryWorkload {

    private static final long HALF_DAY_MS = 43_200_000L;

    private final String topic;
    private final int keys;
    private final LocalDate day;
    private final long dayStartMs;
    private final SplittableRandom random;
    private final Map<TotalsKey, long[]> expected = new HashMap<>();
    private int payments;

    RecoveryWorkload(String topic, int keys, LocalDate day, long seed) {
        this.topic = topic;
        this.keys = keys;
        this.day = day;
        this.dayStartMs = day.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        this.random = new SplittableRandom(seed);
    }

    /** One payment for each key, its event time in the first quarter of the day. */
    void publishState(Producer<byte[], byte[]> producer) {
        for (int k = 0; k < keys; k++) {
            publish(producer, k, dayStartMs + HALF_DAY_MS / 2 * k / keys);
        }
        producer.flush();
    }

    /**
     * {@code count} payments on keys drawn uniformly, event times after every earlier one (in the
     * second quarter of the day); returns how many distinct keys they changed.
     */
    int publishSlice(Producer<byte[], byte[]> producer, int count) {
        Set<Integer> changed = new HashSet<>();
        for (int i = 0; i < count; i++) {
            int k = random.nextInt(keys);
            changed.add(k);
            publish(producer, k, dayStartMs + HALF_DAY_MS / 2 + payments);
        }
        producer.flush();
        return changed.size();
    }

    Map<TotalsKey, long[]> expected() {
        return expected;
    }

    private void publish(Producer<byte[], byte[]> producer, int key, long atMs) {
        if (atMs >= dayStartMs + HALF_DAY_MS) {
            throw new IllegalStateException("More payments than the half day holds milliseconds");
        }
        int p = payments++;
        String id = "rec-" + p;
        String merchant = "r" + key;
        long amount = 100 + random.nextLong(99_901);
        long[] total =
                expected.computeIfAbsent(new TotalsKey(merchant, day, "EUR"), x -> new long[2]);
        total[0] += amount;
        total[1]++;
        producer.send(
                new ProducerRecord<>(
                        topic,
                        id.getBytes(StandardCharsets.UTF_8),
                        Envelopes.payment(
                                        id,
                                        "c" + (p % 97),
                                        merchant,
                                        amount,
                                        "EUR",
                                        "SUCCEEDED",
                                        atMs,
                                        p,
                                        true)
                                .getBytes(StandardCharsets.UTF_8)));
    }
}
