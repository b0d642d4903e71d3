package io.effonce.job;

import java.util.Map;

/**
 * Settings every Kafka client of the job starts from. A broker that refuses connections (a wrong
 * {@code --kafka.bootstrap-servers}, or every broker down) made the clients' default metadata
 * recovery rebootstrap in a tight loop that skips the reconnect backoff: measured here, 50 MB of
 * "Rebootstrapping" lines in 10 s from one admin client against a closed port, against 11 KB with
 * these. Bootstrapping again helps only when every broker came back at new addresses; the job's
 * restart then creates new clients from the bootstrap list anyway.
 */
final class KafkaClientDefaults {

    static final Map<String, String> SETTINGS =
            Map.of(
                    "metadata.recovery.strategy", "none",
                    // Reconnect attempts back off from 50 ms to 5 s: a broker back after a restart
                    // is found within 5 s, one that stays away costs a line every 5 s.
                    "reconnect.backoff.max.ms", "5000");

    private KafkaClientDefaults() {}
}
