package io.effonce.examples.adclicks;

import java.time.Duration;
import java.time.Instant;

/** A row of the clicks table: a campaign in one hour (its start, epoch milliseconds, UTC). */
public record CampaignHour(String campaignId, long hourStart) {

    private static final long HOUR = Duration.ofHours(1).toMillis();

    public static CampaignHour of(Click click) {
        return new CampaignHour(click.campaignId(), click.at() - Math.floorMod(click.at(), HOUR));
    }

    public Instant hour() {
        return Instant.ofEpochMilli(hourStart);
    }
}
