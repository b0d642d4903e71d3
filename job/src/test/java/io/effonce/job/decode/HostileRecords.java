package io.effonce.job.decode;

import static io.effonce.job.decode.Envelopes.after;
import static io.effonce.job.decode.Envelopes.schemasOff;
import static io.effonce.job.decode.Envelopes.schemasOn;

import io.effonce.job.JobOptions;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hostile change records: valid envelopes of both schema forms, mutated (fields dropped, retyped,
 * emptied, lengthened, duplicated, nested, truncated, bytes flipped, huge numbers, odd Unicode,
 * heartbeats of any shape). The decoder's fuzz property draws them through jqwik; pipeline tests
 * draw a fixed set from a seed.
 */
public final class HostileRecords {

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

    /** How many valid envelopes there are to start from. */
    public static final int VALID = VALID_AFTERS.size();

    /** How many kinds of mutation {@link #mutate} knows. */
    public static final int MUTATIONS = 12;

    private HostileRecords() {}

    /** Valid envelope {@code which}, with converter schemas on or off. */
    public static String envelope(int which, boolean schemasOn) {
        String after = VALID_AFTERS.get(which);
        return schemasOn ? schemasOn(after) : schemasOff(after);
    }

    /**
     * {@code n} records from {@code seed} that the decoder refuses (dead letters, none a change or
     * a heartbeat): for pipeline tests whose oracle is the ledger alone.
     */
    public static List<byte[]> refused(long seed, int n) {
        ChangeDecoder decoder =
                new ChangeDecoder(
                        ZoneOffset.UTC, 64, JobOptions.EVENT_TIME_TOLERANCE.defaultValue());
        Random random = new Random(seed);
        List<byte[]> records = new ArrayList<>(n);
        while (records.size() < n) {
            List<Integer> mutations = new ArrayList<>();
            for (int i = random.nextInt(4) + 1; i > 0; i--) {
                mutations.add(random.nextInt(MUTATIONS));
            }
            byte[] value =
                    mutate(
                            envelope(random.nextInt(VALID), random.nextBoolean()),
                            mutations,
                            random.nextLong());
            LedgerRecord decoded = decoder.decode("t", 0, 0, ChangeDecoder.NO_TIMESTAMP, value);
            if (decoded != null && decoded.deadLetter() != null) {
                records.add(value);
            }
        }
        return records;
    }

    /** Applies each mutation in turn; the seed makes every choice inside it. */
    public static byte[] mutate(String envelope, List<Integer> mutations, long seed) {
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
                Matcher.quoteReplacement("\"" + field + "\":" + value));
    }

    private static String valueOf(String text, String field) {
        Matcher m = Pattern.compile("\"" + field + "\":(\"[^\"]*\"|[^,}]*)").matcher(text);
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
