package io.effonce.cdc;

import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;

/** Reads {@code 500ms}, {@code 30s}, {@code 5m}, {@code 0}, or ISO-8601 such as {@code PT30S}. */
final class Durations implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String text) {
        return parse(text);
    }

    static Duration parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        try {
            if (t.equals("0")) {
                return Duration.ZERO;
            }
            if (t.startsWith("pt") || t.startsWith("p")) {
                return Duration.parse(t.toUpperCase(Locale.ROOT));
            }
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            }
            long n = Long.parseLong(t.substring(0, t.length() - 1));
            switch (t.charAt(t.length() - 1)) {
                case 's':
                    return Duration.ofSeconds(n);
                case 'm':
                    return Duration.ofMinutes(n);
                case 'h':
                    return Duration.ofHours(n);
                default:
                    break;
            }
        } catch (RuntimeException e) {
            // fall through to the explanation below
        }
        throw new IllegalArgumentException(
                "'" + text + "' is not a duration; write e.g. 500ms, 30s, 5m or PT30S");
    }
}
