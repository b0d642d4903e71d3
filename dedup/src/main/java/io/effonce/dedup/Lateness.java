package io.effonce.dedup;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.util.TimeUtils;

/**
 * The dedup rules' settings, read once from {@link DedupOptions} and validated: how long after its
 * event time a change may still arrive ({@code horizon}: a copy with {@code eventTime + horizon <=
 * bound} is late, and an id may be forgotten at that same instant), whether the bound keeps the
 * largest watermark seen across restores ({@link WatermarkFloor}), and an optional processing-time
 * TTL behind the event-time expiry. Every stage that dedups reads its rules from here.
 */
public final class Lateness implements Serializable {

    private static final long serialVersionUID = 1L;

    private final Duration horizon;
    private final boolean watermarkFloor;
    @Nullable private final Duration stateTtl;

    /** Checks the settings; each error names its option and the fix. */
    public Lateness(Duration horizon, boolean watermarkFloor, @Nullable Duration stateTtl) {
        Objects.requireNonNull(horizon, "horizon must not be null");
        if (horizon.isNegative() || horizon.toMillis() < 1) {
            throw new IllegalArgumentException(
                    "dedup.horizon must be at least 1 ms, got "
                            + horizon
                            + ". Set it to how long after an event a copy may still arrive"
                            + " (default 2 h).");
        }
        if (stateTtl != null) {
            Duration minimum = horizon.multipliedBy(DedupOptions.MIN_TTL_HORIZONS);
            if (stateTtl.compareTo(minimum) < 0) {
                throw new IllegalArgumentException(
                        "dedup.state-ttl ("
                                + stateTtl
                                + ") must be at least "
                                + DedupOptions.MIN_TTL_HORIZONS
                                + " x dedup.horizon ("
                                + minimum
                                + "): a TTL shorter than that forgets IDs before their"
                                + " event-time expiry and lets duplicates through. Raise it"
                                + " or leave it unset.");
            }
        }
        this.horizon = horizon;
        this.watermarkFloor = watermarkFloor;
        this.stateTtl = stateTtl;
    }

    /** The settings in {@code config}, each option's default where it is not set. */
    public static Lateness from(ReadableConfig config) {
        return new Lateness(
                config.get(DedupOptions.HORIZON),
                config.get(DedupOptions.WATERMARK_FLOOR_ENABLED),
                config.getOptional(DedupOptions.STATE_TTL).orElse(null));
    }

    public Duration horizon() {
        return horizon;
    }

    public long horizonMillis() {
        return horizon.toMillis();
    }

    /** Whether the bound keeps the largest watermark seen across restores. */
    public boolean watermarkFloor() {
        return watermarkFloor;
    }

    /** The processing-time TTL on remembered ids, or {@code null} when off. */
    @Nullable
    public Duration stateTtl() {
        return stateTtl;
    }

    /**
     * What a change's expiry is judged against: the watermark, or the floor when that is higher and
     * the floor is on (rule 4).
     */
    public long bound(long floor, long watermark) {
        return watermarkFloor ? Math.max(floor, watermark) : watermark;
    }

    /** Rule 1: a change whose expiry the bound has reached is late. */
    public boolean isLate(long eventTime, long bound) {
        return expiryOf(eventTime) <= bound;
    }

    /**
     * When a change of {@code eventTime} is too late, and its id may be forgotten: {@code eventTime
     * + horizon}, saturated at {@code Long.MAX_VALUE}.
     */
    public long expiryOf(long eventTime) {
        return expiryOf(eventTime, horizon.toMillis());
    }

    /** The same for a horizon in milliseconds. */
    public static long expiryOf(long eventTime, long horizonMillis) {
        return eventTime > Long.MAX_VALUE - horizonMillis
                ? Long.MAX_VALUE
                : eventTime + horizonMillis;
    }

    /**
     * The horizon, recorded with the state: every remembered id's expiry was set with it. A larger
     * one would accept copies of ids already forgotten (counted again); a smaller one only judges
     * more copies late, and each accepted copy still finds its original, whose expiry is later
     * still.
     */
    public RecordedSetting recordedHorizon() {
        return recordedHorizon(horizon.toMillis());
    }

    /** The same for a horizon in milliseconds. */
    public static RecordedSetting recordedHorizon(long horizonMillis) {
        return new RecordedSetting(
                DedupOptions.HORIZON.key(),
                TimeUtils.formatWithHighestUnit(Duration.ofMillis(horizonMillis)),
                (recorded, now) ->
                        TimeUtils.parseDuration(now).compareTo(TimeUtils.parseDuration(recorded))
                                <= 0,
                "a larger horizon would accept copies of ids the state already forgot (they would"
                        + " be counted again) and changes of days already retired. A smaller one is"
                        + " safe.");
    }

    /** {@code dedup.state-ttl} on remembered ids: a safety net behind the event-time expiry. */
    public static StateTtlConfig idsTtl(Duration stateTtl) {
        return StateTtlConfig.newBuilder(stateTtl)
                .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
                .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                .build();
    }

    @Override
    public String toString() {
        return "Lateness[horizon="
                + horizon
                + ", watermarkFloor="
                + watermarkFloor
                + ", stateTtl="
                + stateTtl
                + "]";
    }
}
