package io.effonce.job.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;

/**
 * {@link ByteTokens} against Jackson: whatever record the byte reader reads, Jackson reads without
 * error and the scan is the same field for field; whatever it gives up on goes to Jackson, so the
 * decoder's verdicts (dead letters and their reasons included) are Jackson's. Over the hostile
 * records of the decoder's fuzz test and over valid envelopes with JSON-significant fragments
 * spliced in at random places.
 */
class ByteTokensDifferentialTest {

    private static final JsonFactory JSON = new JsonFactory();

    private static final AtomicLong READ = new AtomicLong();
    private static final AtomicLong GAVE_UP = new AtomicLong();
    private static final AtomicLong JACKSON_REFUSED = new AtomicLong();

    /** Pieces that matter to a JSON reader, spliced into valid envelopes. */
    private static final List<String> FRAGMENTS =
            List.of(
                    "{",
                    "}",
                    "[",
                    "]",
                    ",",
                    ":",
                    "\"",
                    "\\",
                    "\\u",
                    "\\u00e9",
                    "\\uD83D",
                    "\\x",
                    "0",
                    "00",
                    "-",
                    "-0",
                    "1",
                    "9",
                    ".",
                    ".5",
                    "e",
                    "E",
                    "e+",
                    "1e-3",
                    "+",
                    "true",
                    "tru",
                    "false",
                    "null",
                    "nul",
                    "NaN",
                    " ",
                    "\n",
                    "\t",
                    "\r",
                    "\u000b",
                    "\u0000",
                    "\u001f",
                    "\u007f",
                    "/*",
                    "//",
                    "'",
                    "\u00e9",
                    "\u4e2d",
                    "\uD83D\uDCB6",
                    "\uFEFF",
                    "\"a\":1",
                    "\"op\":\"c\"",
                    "\"payload\":{}",
                    "\"after\":{}",
                    "\"after\":[]",
                    "\"ts_ms\":",
                    "\"heartbeat\":true",
                    "99999999999999999999",
                    "123456789012345678",
                    "1234567890123456789");

    /** Bytes no valid UTF-8 has where they stand: a stray continuation, overlong, surrogate. */
    private static final List<byte[]> BAD_UTF8 =
            List.of(
                    new byte[] {(byte) 0x80},
                    new byte[] {(byte) 0xC0, (byte) 0x80},
                    new byte[] {(byte) 0xC1, (byte) 0xBF},
                    new byte[] {(byte) 0xE0, (byte) 0x80, (byte) 0x80},
                    new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                    new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
                    new byte[] {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80},
                    new byte[] {(byte) 0xE2, (byte) 0x82},
                    new byte[] {(byte) 0xFE});

    @Property(tries = 30_000)
    void hostileRecordsReadTheSameAsWithJackson(@ForAll("hostile") byte[] value) {
        assertSameAsJackson(value);
    }

    @Property(tries = 30_000)
    void envelopesWithSplicedFragmentsReadTheSameAsWithJackson(@ForAll("spliced") byte[] value) {
        assertSameAsJackson(value);
    }

    /** The records the job meets reach Jackson only when a field the scan reads is escaped. */
    @Example
    void plainEnvelopesOfEitherFormAreReadFromTheirBytes() throws IOException {
        for (int which = 0; which < HostileRecords.VALID; which++) {
            for (boolean schemasOn : new boolean[] {false, true}) {
                byte[] value = bytes(HostileRecords.envelope(which, schemasOn));
                assertThat(describe(EnvelopeScan.read(new ByteTokens(value))))
                        .isEqualTo(describe(withJackson(value)));
            }
        }
        String skippedOddities =
                Envelopes.schemasOff(
                        Envelopes.after(
                                        "p1",
                                        "m\u00e9",
                                        5,
                                        "EUR",
                                        "SUCCEEDED",
                                        "2026-11-29T10:00:00Z")
                                .replace("\"c1\"", "\"c\\\"1\\u00e9 \u4e2d\uD83D\uDCB6\"")
                                .replace("null", "[1.5e-3,-0,{\"x\":[true,false]},\"\"]"));
        byte[] value = bytes(skippedOddities);
        EnvelopeScan scan = EnvelopeScan.read(new ByteTokens(value));
        assertThat(scan.afterField("merchant_id").text()).isEqualTo("m\u00e9");
        assertThat(describe(scan)).isEqualTo(describe(withJackson(value)));
    }

    /** Each of these is refused by Jackson; the byte reader must give up on it, not accept it. */
    @Example
    void theByteReaderGivesUpOnWhatJacksonRefuses() {
        String valid =
                Envelopes.schemasOff(Envelopes.after("p1", "m1", 5, "EUR", "SUCCEEDED", "x"));
        List<String> refused =
                List.of(
                        valid.replace("\"amount\":5", "\"amount\":05"),
                        valid.replace("\"amount\":5", "\"amount\":5."),
                        valid.replace("\"amount\":5", "\"amount\":.5"),
                        valid.replace("\"amount\":5", "\"amount\":+5"),
                        valid.replace("\"amount\":5", "\"amount\":-"),
                        valid.replace("\"amount\":5", "\"amount\":5e"),
                        valid.replace("\"amount\":5", "\"amount\":NaN"),
                        valid.replace("\"amount\":5", "\"amount\":5x"),
                        valid.replace("\"amount\":5", "\"amount\":tru"),
                        valid.replace("\"amount\":5", "\"amount\":truex"),
                        valid.replace("\"amount\":5", "\"amount\":'5'"),
                        valid.replace("\"amount\":5", "amount:5"),
                        valid.replace("\"amount\":5", "\"amount\":5,"),
                        valid.replace("\"amount\":5", "\"amount\" 5"),
                        valid.replace("\"lsn\":123456", "\"lsn\":[1,2,]"),
                        valid.replace("\"lsn\":123456", "\"lsn\":[1 2]"),
                        valid.replace("\"lsn\":123456", "\"lsn\":{\"a\" 1}"),
                        valid.replace("\"lsn\":123456", "\"lsn\":/*c*/1"),
                        valid.replace("\"c1\"", "\"c\\x1\""),
                        valid.replace("\"c1\"", "\"c\\u12\""),
                        valid.replace("\"c1\"", "\"c\u00011\""),
                        valid.replace("\"c1\"", "\"c1"),
                        valid.substring(0, valid.length() - 1),
                        valid.replace("{\"before\"", "{\u000b\"before\""));
        for (String json : refused) {
            byte[] value = bytes(json);
            assertThatThrownBy(() -> withJackson(value)).as(json).isInstanceOf(IOException.class);
            assertThatThrownBy(() -> EnvelopeScan.read(new ByteTokens(value)))
                    .as(json)
                    .isInstanceOf(ByteTokens.Unusual.class);
        }
        for (byte[] bad : BAD_UTF8) {
            byte[] value = splice(bytes(valid), valid.indexOf("c1\"") + 1, bad);
            assertThatThrownBy(() -> EnvelopeScan.read(new ByteTokens(value)))
                    .as(Arrays.toString(bad))
                    .isInstanceOf(ByteTokens.Unusual.class);
        }
    }

    /**
     * Past its own limits (far below Jackson's) the byte reader gives up and Jackson reads the
     * record; names one letter off those the scan reads are names like any other.
     */
    @Example
    void pastItsLimitsTheByteReaderGivesUpAndNearMissNamesReadAsWithJackson() throws IOException {
        String valid =
                Envelopes.schemasOff(
                        Envelopes.after("p1", "m1", 5, "EUR", "SUCCEEDED", "2026-11-29T10:00:00Z"));
        List<String> pastLimits =
                List.of(
                        valid.replace("123456", "[".repeat(70) + "]".repeat(70)),
                        valid.replace("\"lsn\"", "\"" + "n".repeat(1_001) + "\""),
                        valid.replace("123456", "1" + "0".repeat(150)),
                        valid.replace("\"c1\"", "\"" + "c".repeat((1 << 20) + 1) + "\""),
                        valid.replace("\"amount\":5", "\"amount\":1234567890123456789"));
        for (String json : pastLimits) {
            byte[] value = bytes(json);
            assertThatThrownBy(() -> EnvelopeScan.read(new ByteTokens(value)))
                    .as(json.substring(0, 80))
                    .isInstanceOf(ByteTokens.Unusual.class);
            assertThat(describe(EnvelopeScan.read(value))).isEqualTo(describe(withJackson(value)));
        }
        for (String[] rename :
                new String[][] {
                    {"\"op\"", "\"oq\""},
                    {"\"after\"", "\"afteR\""},
                    {"\"ts_ms\":1764410400123", "\"ts_mx\":1764410400123"},
                    {"\"state\"", "\"stats\""},
                    {"\"payment_id\"", "\"payment_ix\""},
                    {"\"source\"", "\"schema\""},
                    {"\"currency\"", "\"c\""}
                }) {
            byte[] value = bytes(valid.replace(rename[0], rename[1]));
            assertThat(describe(EnvelopeScan.read(new ByteTokens(value))))
                    .as(rename[1])
                    .isEqualTo(describe(withJackson(value)));
        }
    }

    private static void assertSameAsJackson(byte[] value) {
        EnvelopeScan jackson;
        try {
            jackson = withJackson(value);
        } catch (IOException e) {
            jackson = null;
        }
        EnvelopeScan fromBytes;
        try {
            fromBytes = EnvelopeScan.read(new ByteTokens(value));
        } catch (ByteTokens.Unusual e) {
            GAVE_UP.incrementAndGet();
            if (jackson == null) {
                JACKSON_REFUSED.incrementAndGet();
            }
            return;
        } catch (IOException e) {
            throw new AssertionError("the byte reader threw " + e, e);
        }
        READ.incrementAndGet();
        assertThat(jackson)
                .as("Jackson refuses what the byte reader read: %s", printable(value))
                .isNotNull();
        assertThat(describe(fromBytes)).as(printable(value)).isEqualTo(describe(jackson));
    }

    @AfterContainer
    static void report() {
        System.out.printf(
                "Byte reader against Jackson: %,d records read the same, %,d given up (%,d of them"
                        + " refused by Jackson too)%n",
                READ.get(), GAVE_UP.get(), JACKSON_REFUSED.get());
        // Both outcomes in numbers, or the property compared little.
        assertThat(READ.get()).isGreaterThan(10_000);
        assertThat(GAVE_UP.get()).isGreaterThan(5_000);
        assertThat(JACKSON_REFUSED.get()).isGreaterThan(1_000);
    }

    @Provide
    Arbitrary<byte[]> hostile() {
        return HostileArbitraries.records(4);
    }

    @Provide
    Arbitrary<byte[]> spliced() {
        Arbitrary<byte[]> envelope =
                Combinators.combine(
                                Arbitraries.integers().between(0, HostileRecords.VALID - 1),
                                Arbitraries.of(true, false))
                        .as((which, on) -> bytes(HostileRecords.envelope(which, on)));
        Arbitrary<byte[]> fragment =
                Arbitraries.oneOf(
                        Arbitraries.of(FRAGMENTS).map(ByteTokensDifferentialTest::bytes),
                        Arbitraries.of(BAD_UTF8));
        return Combinators.combine(
                        envelope,
                        fragment.list().ofMinSize(0).ofMaxSize(3),
                        Arbitraries.doubles().between(0, 1).list().ofSize(3))
                .as(
                        (value, pieces, at) -> {
                            byte[] result = value;
                            for (int i = 0; i < pieces.size(); i++) {
                                result =
                                        splice(
                                                result,
                                                (int) (at.get(i) * result.length),
                                                pieces.get(i));
                            }
                            return result;
                        });
    }

    private static EnvelopeScan withJackson(byte[] value) throws IOException {
        try (JsonParser parser = JSON.createParser(value)) {
            return EnvelopeScan.read(new JacksonTokens(parser));
        }
    }

    /** Every field of the scan, the payload's too. */
    private static String describe(EnvelopeScan s) {
        if (s == null) {
            return "none";
        }
        return String.join(
                " ",
                "object=" + s.object,
                "fields=" + s.fields,
                "heartbeat=" + s.heartbeat,
                "ts_ms=" + s.tsMs,
                "hasOp=" + s.hasOp,
                "op=" + s.op,
                "hasSchema=" + s.hasSchema,
                "payloadNotObject=" + s.payloadNotObject,
                "after=" + s.after,
                "afterFields=" + Arrays.toString(s.afterFields),
                "payload=[" + describe(s.payload) + "]");
    }

    private static byte[] splice(byte[] value, int at, byte[] piece) {
        byte[] result = new byte[value.length + piece.length];
        System.arraycopy(value, 0, result, 0, at);
        System.arraycopy(piece, 0, result, at, piece.length);
        System.arraycopy(value, at, result, at + piece.length, value.length - at);
        return result;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String printable(byte[] value) {
        return new String(value, StandardCharsets.ISO_8859_1);
    }
}
