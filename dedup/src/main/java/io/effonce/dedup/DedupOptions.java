package io.effonce.dedup;

import static org.apache.flink.configuration.ConfigOptions.key;

import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;

/**
 * Options of {@link EventTimeDedup}, readable from Flink configuration or the command line (through
 * {@link EventTimeDedup.Builder#configure}).
 */
public final class DedupOptions {

    /** A processing-time TTL, when set, must be at least this many horizons long. */
    public static final int MIN_TTL_HORIZONS = 4;

    public static final ConfigOption<Duration> HORIZON =
            key("dedup.horizon")
                    .durationType()
                    .defaultValue(Duration.ofHours(2))
                    .withDescription(
                            "Acceptance horizon. An event ID is remembered until the watermark"
                                    + " reaches its event time + horizon; a copy whose event time"
                                    + " + horizon <= max(watermark floor, watermark) is rejected"
                                    + " as late (side output). At least 1 ms.");

    public static final ConfigOption<Boolean> WATERMARK_FLOOR_ENABLED =
            key("dedup.watermark-floor.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Keep the largest watermark seen in checkpointed operator state and"
                                    + " keep rejecting late copies with it after a restore, before"
                                    + " new watermarks arrive. Switch off only for counterfactual"
                                    + " tests: without it a copy that was late before a crash is"
                                    + " counted twice after the restore.");

    public static final ConfigOption<Duration> STATE_TTL =
            key("dedup.state-ttl")
                    .durationType()
                    .noDefaultValue()
                    .withDescription(
                            "Optional processing-time TTL on the seen-IDs, only as a guard against"
                                    + " state growing without bound (for example if the watermark"
                                    + " stops). Off when unset. When set it must be at least "
                                    + MIN_TTL_HORIZONS
                                    + " x dedup.horizon: an ID dropped by the TTL before its"
                                    + " event-time expiry lets a later copy through.");

    private DedupOptions() {}
}
