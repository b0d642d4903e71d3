package io.effonce.job.decode;

import static io.effonce.job.decode.Envelopes.after;
import static io.effonce.job.decode.Envelopes.schemasOff;
import static io.effonce.job.decode.Envelopes.schemasOn;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The decoder over generated hostile input: valid envelopes of both schema forms, mutated at random
 * (fields dropped, retyped, emptied, lengthened, duplicated, nested, truncated, bytes flipped, huge
 * numbers, odd Unicode). Whatever comes in, the decoder never throws, and returns either a change
 * that meets every downstream contract or a dead letter with a known reason.
 */
class ChangeDecoderFuzzTest {

    private static final int MAX_RAW = 256;
    private static final ChangeDecoder DECODER = new ChangeDecoder(ZoneOffset.UTC, MAX_RAW);
    private static final Set<String> CODES =
            Arrays.stream(RejectReason.values())
                    .map(RejectReason::code)
                    .collect(Collectors.toSet());
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    private static final AtomicLong INPUTS = new AtomicLong();
    private static final AtomicLong CHANGES = new AtomicLong();
    private static final Map<RejectReason, AtomicLong> REASONS = new ConcurrentHashMap<>();

    private static final List<String> VALID_AFTERS =
            List.of(
                    after("pay_1", "m1", 3000, "EUR", "SUCCEEDED", "2026-11-29T10:42:00.123456Z"),
                    after("pay_2", "m-\u00e9\u4e2d", 0, "USD", "FAILED", "2026-11-29T23:59:59Z"),
                    after("pay_3", "m3", 999_999, "GBP", "PENDING", "2025-03-01T06:00:00Z"),
                    "{\"payment_id\":\"pay_4\",\"caller_id\":\"c\",\"client_key\":\"k\","
                            + "\"merchant_id\":null,\"amount\":null,\"currency\":null,"
                            + "\"state\":\"VOID\",\"updated_at\":\"2026-11-29T10:00:00Z\"}");

    private static final String[] FIELDS = {
        "payment_id", "merchant_id", "amount", "currency", "state", "updated_at", "op", "after"
    };

    private static final String[] ODD_VALUES = {
        "null",
        "true",
        "\"\"",
        "\" \"",
        "{}",
        "[]",
        "[1,2]",
        "{\"x\":{\"y\":[null]}}",
        "1e400",
        "-0",
        "1.5e3",
        "99999999999999999999",
        "-9223372036854775808",
        "9223372036854775807",
        "1000000000001",
        "\"\\u0000\"",
        "\"\\ud800\"",
        "\"\\udc00x\"",
        "\"\\uD83D\\uDCB6\"",
        "\"\u202e\u0301\"",
        "\"SUCCEEDED\"",
        "\"VOID\"",
        "\"d\"",
        "\"t\"",
        "\"r\"",
        "\"eur\"",
        "\"EURO\"",
        "\"+999999999-12-31T23:59:59Z\"",
        "\"-999999999-01-01T00:00:00Z\"",
        "\"0000-12-31T23:59:59Z\"",
        "\"2026-02-30T00:00:00Z\"",
        "\"2026-11-29\"",
    };

    @Property(tries = 100_000)
    void anyInputIsAValidChangeOrADeadLetterWithAReason(@ForAll("records") byte[] value) {
        INPUTS.incrementAndGet();
        LedgerRecord record = DECODER.decode("payments", 1, 42, value);

        assertThat(record).isNotNull();
        if (record.deadLetter() != null) {
            DeadLetter dead = record.deadLetter();
            assertThat(record.change()).isNull();
            String code = dead.reason().split(":", 2)[0];
            assertThat(CODES).as("reason %s", dead.reason()).contains(code);
            assertThat(dead.reason()).doesNotContain("\u0000").hasSizeLessThan(400);
            assertThat(dead.rawValue()).doesNotContain("\u0000").hasSizeLessThanOrEqualTo(MAX_RAW);
            assertThat(dead.offset()).isEqualTo(42);
            REASONS.computeIfAbsent(reasonOf(code), r -> new AtomicLong()).incrementAndGet();
        } else if (record.change() != null) {
            assertMeetsTheContract(record.change());
            CHANGES.incrementAndGet();
        } else {
            assertThat(record.isHeartbeat())
                    .as("neither change, dead letter nor heartbeat")
                    .isTrue();
        }
    }

    /** What the sink's columns, the dedup keys and the totals rely on. */
    private static void assertMeetsTheContract(PaymentChange c) {
        assertThat(ChangeDecoder.identifierProblem(c.paymentId())).isNull();
        assertThat(ChangeDecoder.STATES).contains(c.state());
        assertThat(Instant.ofEpochMilli(c.eventTimeMillis()))
                .isBetween(ChangeDecoder.MIN_EVENT_TIME, ChangeDecoder.MAX_EVENT_TIME);
        assertThat(c.day())
                .isEqualTo(
                        LocalDate.ofInstant(
                                Instant.ofEpochMilli(c.eventTimeMillis()), ZoneOffset.UTC));
        if (!c.state().equals("VOID")) {
            assertThat(ChangeDecoder.identifierProblem(c.merchantId())).isNull();
            assertThat(c.amount()).isBetween(0L, ChangeDecoder.MAX_AMOUNT);
            assertThat(c.currency()).matches(CURRENCY);
        }
    }

    @AfterContainer
    static void report() {
        System.out.printf(
                "Decoder fuzz: %,d inputs, %,d valid changes, dead letters by reason %s%n",
                INPUTS.get(), CHANGES.get(), REASONS);
        // The generator must reach most of the decoder's rules, or the property proves little.
        EnumSet<RejectReason> seen = EnumSet.noneOf(RejectReason.class);
        seen.addAll(REASONS.keySet());
        assertThat(seen.size()).as("distinct reasons seen: %s", seen).isGreaterThanOrEqualTo(12);
        assertThat(CHANGES.get()).as("valid changes among the inputs").isPositive();
    }

    private static RejectReason reasonOf(String code) {
        for (RejectReason r : RejectReason.values()) {
            if (r.code().equals(code)) {
                return r;
            }
        }
        throw new AssertionError("unknown reason code " + code);
    }

    @Provide
    Arbitrary<byte[]> records() {
        Arbitrary<String> envelope =
                Combinators.combine(Arbitraries.of(VALID_AFTERS), Arbitraries.of(true, false))
                        .as((after, on) -> on ? schemasOn(after) : schemasOff(after));
        Arbitrary<List<Integer>> mutations =
                Arbitraries.integers().between(0, 11).list().ofMaxSize(4);
        return Combinators.combine(envelope, mutations, Arbitraries.longs())
                .as(ChangeDecoderFuzzTest::mutate);
    }

    /** Applies each mutation in turn; the seed makes every choice inside it. */
    private static byte[] mutate(String envelope, List<Integer> mutations, long seed) {
        Random random = new Random(seed);
        String text = envelope;
        for (int m : mutations) {
            String field = FIELDS[random.nextInt(FIELDS.length)];
            text =
                    switch (m) {
                        case 0 -> text.replaceFirst("\"" + field + "\":(\"[^\"]*\"|[^,}]*),?", "");
                        case 1 ->
                                setValue(
                                        text, field, ODD_VALUES[random.nextInt(ODD_VALUES.length)]);
                        case 2 -> setValue(text, field, "\"\"");
                        case 3 ->
                                setValue(
                                        text, field, "\"" + "x".repeat(random.nextInt(600)) + "\"");
                        case 4 ->
                                text.replaceFirst(
                                        "\"after\":\\{",
                                        "\"after\":{\""
                                                + field
                                                + "\":"
                                                + ODD_VALUES[random.nextInt(ODD_VALUES.length)]
                                                + ",");
                        case 5 ->
                                setValue(text, field, "{\"nested\":" + valueOf(text, field) + "}");
                        case 6 -> text.substring(0, random.nextInt(text.length() + 1));
                        case 7 -> flipBytes(text, random);
                        case 8 ->
                                setValue(
                                        text,
                                        "amount",
                                        random.nextBoolean()
                                                ? "1" + "0".repeat(random.nextInt(40))
                                                : "-" + random.nextInt());
                        case 9 -> insertUnicode(text, field, random);
                        case 10 ->
                                setValue(
                                        text,
                                        "op",
                                        "\"" + "cudtmrx?".charAt(random.nextInt(8)) + "\"");
                        default ->
                                "{\"heartbeat\":"
                                        + (random.nextBoolean() ? "true" : "1")
                                        + ",\"ts_ms\":"
                                        + ODD_VALUES[random.nextInt(ODD_VALUES.length)]
                                        + "}";
                    };
        }
        if (text.startsWith("\u0001")) {
            return text.substring(1).getBytes(StandardCharsets.ISO_8859_1);
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String setValue(String text, String field, String value) {
        return text.replaceFirst(
                "\"" + field + "\":(\"[^\"]*\"|\\{[^{}]*\\}|[^,}]*)",
                java.util.regex.Matcher.quoteReplacement("\"" + field + "\":" + value));
    }

    private static String valueOf(String text, String field) {
        java.util.regex.Matcher m =
                Pattern.compile("\"" + field + "\":(\"[^\"]*\"|[^,}]*)").matcher(text);
        return m.find() ? m.group(1) : "null";
    }

    /** Flips up to eight random bits of the UTF-8 bytes; marks the result as raw bytes. */
    private static String flipBytes(String text, Random random) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0) {
            return text;
        }
        for (int i = random.nextInt(8) + 1; i > 0; i--) {
            bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
        }
        return "\u0001" + new String(bytes, StandardCharsets.ISO_8859_1);
    }

    private static String insertUnicode(String text, String field, Random random) {
        String[] odd = {
            "\\u0000", "\\ud800", "\\u001f", "\u00e9", "\uD83D\uDCB6", "\u202e", "\\\"", "\\\\"
        };
        String v = valueOf(text, field);
        if (!v.startsWith("\"") || v.length() < 2) {
            return text;
        }
        int at = 1 + random.nextInt(v.length() - 1);
        return setValue(
                text,
                field,
                v.substring(0, at) + odd[random.nextInt(odd.length)] + v.substring(at));
    }
}
