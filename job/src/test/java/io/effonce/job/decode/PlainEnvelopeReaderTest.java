package io.effonce.job.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.junit.jupiter.api.Test;

/**
 * The fast path reads exactly what Jackson's pass reads, or gives up: over generated envelopes
 * (random members, values and whitespace, then a byte deleted, inserted or replaced) and over the
 * decoder's hostile records, every scan it returns equals Jackson's, and it never returns one for
 * input Jackson refuses. And it does read what the relay writes, or it would buy nothing.
 */
class PlainEnvelopeReaderTest {

    private static final JsonFactory JSON = new JsonFactory();
    private static final AtomicLong INPUTS = new AtomicLong();
    private static final AtomicLong READ_FAST = new AtomicLong();
    private static final AtomicLong REFUSED_BY_JACKSON = new AtomicLong();

    @Property(tries = 50_000)
    void readsWhatJacksonReadsOrGivesUp(@ForAll("envelopes") byte[] value) {
        assertSameAsJackson(value);
    }

    @Property(tries = 20_000)
    void readsHostileRecordsAsJacksonDoesOrGivesUp(@ForAll("hostile") byte[] value) {
        assertSameAsJackson(value);
    }

    @Test
    void readsTheRelaysRecords() {
        for (boolean schemasOn : List.of(false, true)) {
            for (int which = 0; which < HostileRecords.VALID; which++) {
                String envelope = HostileRecords.envelope(which, schemasOn);
                if (envelope.chars().allMatch(c -> c < 0x80)) {
                    assertThat(PlainEnvelopeReader.read(bytes(envelope)))
                            .as("fast path for %s", envelope)
                            .isNotNull();
                }
            }
        }
        assertThat(PlainEnvelopeReader.read(bytes("{\"heartbeat\":true,\"ts_ms\":17}")))
                .isNotNull();
    }

    @Test
    void leavesWhatIsNotPlainToJackson() {
        String after = Envelopes.after("p1", "m1", 100, "EUR", "SUCCEEDED", "2026-11-29T10:42:00Z");
        List<String> notPlain =
                List.of(
                        Envelopes.schemasOff(after.replace("\"m1\"", "\"m\\u0031\"")),
                        Envelopes.schemasOff(after.replace("\"m1\"", "\"m\u00e9\"")),
                        Envelopes.schemasOff(after.replace("100", "1234567890123456789")),
                        Envelopes.schemasOff(after.replace("100", "0100")),
                        Envelopes.schemasOff(after) + " x",
                        Envelopes.schemasOff(after)
                                .replace("\"op\":\"u\"", "\"op\":\"u\",\"op\":\"c\""),
                        Envelopes.schemasOff(
                                after.replace("\"state\"", "\"state\":\"X\",\"state\"")),
                        "{\"op\":\"c\",\"x\":" + "[".repeat(70) + "]".repeat(70) + "}",
                        "{\"op\":\"c\",}",
                        "[1]",
                        "");
        for (String value : notPlain) {
            assertThat(PlainEnvelopeReader.read(bytes(value))).as(value).isNull();
        }
    }

    /** The eight-bytes-at-a-time scan: every length, every position of a byte that spoils it. */
    @Test
    void findsTheEndOrTheSpoilingByteAtEveryPosition() {
        for (int length = 0; length <= 40; length++) {
            String plain = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH".substring(0, length);
            EnvelopeScan scan = PlainEnvelopeReader.read(bytes("{\"op\":\"" + plain + "\"}"));
            assertThat(scan).as("length %d", length).isNotNull();
            assertThat(scan.op).isEqualTo(plain);
            for (int at = 0; at < length; at++) {
                for (String spoiler : List.of("\\n", "\u0001", "\u001f", "\u00e9", "\u007f")) {
                    String text = plain.substring(0, at) + spoiler + plain.substring(at + 1);
                    EnvelopeScan spoilt =
                            PlainEnvelopeReader.read(bytes("{\"op\":\"" + text + "\"}"));
                    if (spoiler.equals("\u007f")) {
                        assertThat(spoilt).as(text).isNotNull(); // DEL is printable for JSON
                        assertThat(spoilt.op).isEqualTo(text);
                    } else {
                        assertThat(spoilt).as("%s at %d of %d", spoiler, at, length).isNull();
                    }
                }
            }
        }
    }

    private static void assertSameAsJackson(byte[] value) {
        INPUTS.incrementAndGet();
        EnvelopeScan fast = PlainEnvelopeReader.read(value);
        EnvelopeScan jackson;
        try (JsonParser parser = JSON.createParser(value)) {
            jackson = EnvelopeScan.read(parser);
        } catch (IOException e) {
            REFUSED_BY_JACKSON.incrementAndGet();
            assertThat(fast)
                    .as(
                            "read by the fast path, refused by Jackson (%s): %s",
                            e.getMessage(), text(value))
                    .isNull();
            return;
        }
        if (fast != null) {
            READ_FAST.incrementAndGet();
            assertThat(describe(fast)).as(text(value)).isEqualTo(describe(jackson));
        }
    }

    @AfterContainer
    static void report() {
        System.out.printf(
                "Plain envelope reader: %,d inputs, %,d read by the fast path, %,d refused by"
                        + " Jackson%n",
                INPUTS.get(), READ_FAST.get(), REFUSED_BY_JACKSON.get());
        // Both sides must be well represented, or the property proves little.
        assertThat(READ_FAST.get()).isGreaterThan(INPUTS.get() / 5);
        assertThat(REFUSED_BY_JACKSON.get()).isGreaterThan(INPUTS.get() / 20);
    }

    /** Everything a scan holds, nested payload included. */
    private static String describe(EnvelopeScan s) {
        if (s == null) {
            return "none";
        }
        return "object=%s heartbeat=%s tsMs=%s hasOp=%s op=%s hasSchema=%s payloadNotObject=%s after=%s fields=%s payload=[%s]"
                .formatted(
                        s.object,
                        s.heartbeat,
                        s.tsMs,
                        s.hasOp,
                        s.op,
                        s.hasSchema,
                        s.payloadNotObject,
                        s.after,
                        java.util.Arrays.toString(s.afterFields),
                        describe(s.payload));
    }

    @Provide
    Arbitrary<byte[]> hostile() {
        return HostileArbitraries.records(3);
    }

    @Provide
    Arbitrary<byte[]> envelopes() {
        return Arbitraries.longs()
                .map(
                        seed -> {
                            Random random = new Random(seed);
                            String json = new RandomEnvelope(random).envelope();
                            byte[] value = bytes(json);
                            return random.nextInt(3) == 0 ? mutateOneByte(value, random) : value;
                        });
    }

    private static byte[] mutateOneByte(byte[] value, Random random) {
        byte[] alphabet = bytes("{}[]\":,-+.0123456789eEtfnul \\\u00e9\t\n\u0000ax");
        int at = random.nextInt(value.length + 1);
        byte b = alphabet[random.nextInt(alphabet.length)];
        return switch (random.nextInt(3)) {
            case 0 -> splice(value, at, new byte[] {b}, 0); // insert
            case 1 -> at < value.length ? splice(value, at, new byte[0], 1) : value; // delete
            default -> at < value.length ? splice(value, at, new byte[] {b}, 1) : value; // replace
        };
    }

    private static byte[] splice(byte[] value, int at, byte[] insert, int remove) {
        byte[] out = new byte[value.length - remove + insert.length];
        System.arraycopy(value, 0, out, 0, at);
        System.arraycopy(insert, 0, out, at, insert.length);
        System.arraycopy(value, at + remove, out, at + insert.length, value.length - at - remove);
        return out;
    }

    /** An envelope of random members and values, some plain and some not. */
    private static final class RandomEnvelope {
        private static final String[] TOP = {
            "heartbeat", "ts_ms", "op", "schema", "payload", "after", "before", "source"
        };
        private static final String[] AFTER = {
            "payment_id", "merchant_id", "amount", "currency", "state", "updated_at", "psp_charge"
        };
        private static final String[] SCALARS = {
            "null",
            "true",
            "false",
            "0",
            "-0",
            "7",
            "-12",
            "3000",
            "1.5",
            "-2.5e3",
            "1E+2",
            "999999999999999999",
            "-999999999999999999",
            "9223372036854775807",
            "12345678901234567890",
            "\"\"",
            "\"c\"",
            "\"u\"",
            "\"r\"",
            "\"SUCCEEDED\"",
            "\"pay-1\"",
            "\"m1\"",
            "\"EUR\"",
            "\"2026-11-29T10:42:00.123Z\"",
            "\"a\\\"b\"",
            "\"\\u00e9\"",
            "\"\u00e9t\u00e9\"",
            "\"tab\\tx\""
        };

        private final Random random;
        private final StringBuilder out = new StringBuilder();

        RandomEnvelope(Random random) {
            this.random = random;
        }

        String envelope() {
            object(TOP, 0);
            return out.toString();
        }

        private void object(String[] names, int depth) {
            out.append('{');
            space();
            List<String> shuffled = new java.util.ArrayList<>(List.of(names));
            java.util.Collections.shuffle(shuffled, random);
            int members = random.nextInt(names.length + 1);
            for (int m = 0; m < members; m++) {
                if (m > 0) {
                    out.append(',');
                    space();
                }
                // Mostly distinct names; sometimes an unknown one or a repeated one.
                int pick = random.nextInt(12);
                String name =
                        pick == 0
                                ? "x" + random.nextInt(3)
                                : pick == 1 ? names[random.nextInt(names.length)] : shuffled.get(m);
                out.append('"').append(name).append('"');
                space();
                out.append(':');
                space();
                if (name.equals("after") || name.equals("before")) {
                    if (random.nextInt(4) == 0) {
                        value(depth + 1);
                    } else {
                        object(AFTER, depth + 1);
                    }
                } else if (name.equals("payload") && random.nextInt(2) == 0) {
                    object(TOP, depth + 1);
                } else {
                    value(depth + 1);
                }
                space();
            }
            out.append('}');
        }

        private void value(int depth) {
            int kind = random.nextInt(depth > 3 ? 1 : 6);
            if (kind == 4) {
                out.append('[');
                int n = random.nextInt(3);
                for (int k = 0; k < n; k++) {
                    if (k > 0) {
                        out.append(',');
                    }
                    value(depth + 1);
                }
                out.append(']');
            } else if (kind == 5) {
                object(new String[] {"a", "op", "after"}, depth + 1);
            } else {
                out.append(SCALARS[random.nextInt(SCALARS.length)]);
            }
        }

        private void space() {
            if (random.nextInt(6) == 0) {
                out.append(" \n\t\r".charAt(random.nextInt(4)));
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
    }
}
