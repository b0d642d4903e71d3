package io.effonce.job.decode;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Reads the relay's {@code updated_at} — {@code 2026-11-30T15:20:01.123456Z}, UTC, 0 to 9 fraction
 * digits — without the general ISO parser, which costs more than the rest of a change's decoding.
 * Anything else (an offset, a leap second, a malformed value) is handed to {@link Instant#parse},
 * so the result and the exceptions are always exactly Instant.parse's. Public for the decoding
 * benchmark.
 */
public final class UtcTimestamps {

    private UtcTimestamps() {}

    public static Instant parse(String text) {
        Instant fast = fastPath(text);
        return fast != null ? fast : Instant.parse(text);
    }

    /** The instant, or {@code null} when {@code text} is not in the relay's exact shape. */
    private static Instant fastPath(String text) {
        int n = text.length();
        if (n < 20 || n > 30 || text.charAt(n - 1) != 'Z') {
            return null;
        }
        if (text.charAt(4) != '-'
                || text.charAt(7) != '-'
                || text.charAt(10) != 'T'
                || text.charAt(13) != ':'
                || text.charAt(16) != ':') {
            return null;
        }
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 7);
        int day = digits(text, 8, 10);
        int hour = digits(text, 11, 13);
        int minute = digits(text, 14, 16);
        int second = digits(text, 17, 19);
        if (year < 1 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) {
            return null; // not digits, or year 0
        }
        if (hour > 23 || minute > 59 || second > 59) {
            return null; // 24:00, a leap second: Instant.parse decides
        }
        int nanos = 0;
        if (n > 20) {
            if (text.charAt(19) != '.' || n == 21) {
                return null;
            }
            int fraction = digits(text, 20, n - 1);
            if (fraction < 0) {
                return null;
            }
            nanos = fraction * POWERS[9 - (n - 21)]; // n - 21 fraction digits
        }
        long epochDay;
        try {
            epochDay = LocalDate.of(year, month, day).toEpochDay();
        } catch (DateTimeException e) {
            return null;
        }
        return Instant.ofEpochSecond(
                epochDay * 86_400 + hour * 3_600L + minute * 60L + second, nanos);
    }

    private static final int[] POWERS = {
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000
    };

    /** The decimal number in {@code text[from, to)}, or -1 if a character is not a digit. */
    private static int digits(String text, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
