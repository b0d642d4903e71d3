package io.effonce.bench.decode;

import io.effonce.bench.Envelopes;
import io.effonce.job.decode.ChangeDecoder;
import io.effonce.job.decode.EnvelopeScan;
import io.effonce.job.decode.LedgerRecord;
import io.effonce.job.decode.UtcTimestamps;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decoding alone, per envelope: the scan that fills {@code EnvelopeScan} from the bytes (Jackson
 * only where they are not plain) and Jackson's streaming pass alone, the relay's timestamp read by
 * {@code UtcTimestamps} against {@link Instant#parse}, and the whole {@link ChangeDecoder#decode}
 * as the job runs it: each piece measured by itself. bench/README.md ("Decoding, measured") has the
 * figures, with those of the byte scan it retired.
 *
 * <p>Envelopes: {@code plain} (the throughput benchmark's), {@code escaped} (a caller id with a
 * JSON escape) and {@code non-ascii} (a caller id in UTF-8).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
public class EnvelopeDecodeBenchmark {

    private static final int ENVELOPES = 1024;

    @Param({"plain", "escaped", "non-ascii"})
    public String envelope;

    private final byte[][] values = new byte[ENVELOPES][];
    private final String[] timestamps = new String[ENVELOPES];
    private final JsonFactory json = new JsonFactory();
    private final ChangeDecoder decoder =
            new ChangeDecoder(ZoneOffset.UTC, 1024, Duration.ofMinutes(5));
    private int next;

    @Setup
    public void envelopes() {
        long start = Instant.parse("2026-11-28T00:00:00Z").toEpochMilli();
        for (int i = 0; i < ENVELOPES; i++) {
            String caller =
                    switch (envelope) {
                        case "plain" -> "c" + i;
                        case "escaped" -> "c\\\"" + i;
                        case "non-ascii" -> "caf\u00e9-" + i;
                        default -> throw new IllegalArgumentException(envelope);
                    };
            long at = start + 7_919L * i;
            values[i] =
                    Envelopes.payment(
                                    "p" + i,
                                    caller,
                                    "m" + (i % 97),
                                    1_000 + i,
                                    "EUR",
                                    i % 3 == 0 ? "PENDING" : "SUCCEEDED",
                                    at,
                                    i,
                                    i % 3 == 0)
                            .getBytes(StandardCharsets.UTF_8);
            timestamps[i] = Instant.ofEpochMilli(at).plusNanos(123_000).toString();
        }
    }

    private int next() {
        next = (next + 1) & (ENVELOPES - 1);
        return next;
    }

    @Benchmark
    public EnvelopeScan scanJackson() throws IOException {
        try (JsonParser parser = json.createParser(values[next()])) {
            return EnvelopeScan.read(parser);
        }
    }

    @Benchmark
    public EnvelopeScan scanBytes() throws IOException {
        return EnvelopeScan.read(values[next()]);
    }

    @Benchmark
    public Instant timestampUtcTimestamps() {
        return UtcTimestamps.parse(timestamps[next()]);
    }

    @Benchmark
    public Instant timestampInstantParse() {
        return Instant.parse(timestamps[next()]);
    }

    @Benchmark
    public LedgerRecord decodeAsTheJobDoes() {
        int i = next();
        return decoder.decode("bench", 0, i, ChangeDecoder.NO_TIMESTAMP, values[i]);
    }
}
