package io.effonce.examples.adclicks;

import java.util.Optional;

/**
 * One click: its id (the natural key a client or producer retries with), its campaign, and when it
 * happened in epoch milliseconds. On the topic it is one line, {@code click_id,campaign_id,millis}.
 */
public record Click(String clickId, String campaignId, long at) {

    /** The click of {@code line}, or empty when the line is not one. */
    public static Optional<Click> parse(String line) {
        String[] fields = line == null ? new String[0] : line.split(",", -1);
        if (fields.length != 3 || fields[0].isBlank() || fields[1].isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(
                    new Click(
                            fields[0].strip(),
                            fields[1].strip(),
                            Long.parseLong(fields[2].strip())));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The line of this click on the topic. */
    public String line() {
        return clickId + "," + campaignId + "," + at;
    }
}
