package io.effonce.feed.page;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Objects;

/**
 * What the page shows at one moment: the day, its top merchant-days with the live and the committed
 * total side by side, how far the committed totals go (as of), and the restores seen.
 *
 * @param day the day shown; null while both totals tables are empty
 * @param asOf from the view {@code committed_progress}; null while the sink has not reported any
 * @param error why the figures could not be read (the database is unreachable, say); the other
 *     fields then hold the last figures read, or nothing
 */
record PageSnapshot(
        LocalDate day,
        List<Row> rows,
        AsOf asOf,
        List<Restore> restores,
        Instant readAt,
        String trigger,
        long commitNotices,
        String error) {

    PageSnapshot {
        rows = List.copyOf(rows);
        restores = List.copyOf(restores);
    }

    /**
     * One (merchant, currency) of the day. A null committed total: no checkpoint has committed the
     * key yet; a null live total: the live table lacks the key (a restore's flush removed it, for
     * now).
     */
    record Row(
            String merchantId,
            String currency,
            Long committedMinor,
            Long committedPayments,
            Long checkpointId,
            Long liveMinor,
            Long livePayments,
            boolean dayFinal,
            String source,
            Long finalMinor) {}

    /** The committed totals' progress, one row of {@code committed_progress}. */
    record AsOf(
            Long checkpointId,
            Instant completeThrough,
            LocalDate finalThrough,
            Instant committedAt,
            Instant lastRestoreAt,
            Long lastRestoredCheckpoint,
            long keyGroups) {}

    /** A restore of the job: when, from which checkpoint, and when this page first saw it. */
    record Restore(Instant at, Long checkpointId, Instant seenAt) {}

    /** The same figures, read again for another reason. */
    PageSnapshot because(String newTrigger, long notices) {
        return new PageSnapshot(day, rows, asOf, restores, readAt, newTrigger, notices, error);
    }

    /**
     * Whether a page showing {@code other} would show the same figures (times of reading aside).
     */
    boolean sameFiguresAs(PageSnapshot other) {
        return other != null
                && Objects.equals(day, other.day)
                && rows.equals(other.rows)
                && Objects.equals(asOf, other.asOf)
                && restores.equals(other.restores)
                && Objects.equals(error, other.error);
    }

    String toJson() {
        JsonText json = new JsonText().begin();
        json.field("day", day)
                .field("readAt", readAt)
                .field("trigger", trigger)
                .number("commitNotices", commitNotices)
                .field("error", error);
        if (asOf == null) {
            json.field("asOf", null);
        } else {
            json.object("asOf")
                    .number("checkpoint", asOf.checkpointId())
                    .field("completeThrough", asOf.completeThrough())
                    .field("finalThrough", asOf.finalThrough())
                    .field("committedAt", asOf.committedAt())
                    .field("lastRestoreAt", asOf.lastRestoreAt())
                    .number("lastRestoredCheckpoint", asOf.lastRestoredCheckpoint())
                    .number("keyGroups", asOf.keyGroups())
                    .end();
        }
        json.array("restores");
        for (Restore r : restores) {
            json.begin()
                    .field("at", r.at())
                    .number("checkpoint", r.checkpointId())
                    .field("seenAt", r.seenAt())
                    .end();
        }
        json.endArray().array("rows");
        for (Row r : rows) {
            json.begin()
                    .field("merchant", r.merchantId())
                    .field("currency", r.currency())
                    .number("committed", r.committedMinor())
                    .number("committedPayments", r.committedPayments())
                    .number("checkpoint", r.checkpointId())
                    .number("live", r.liveMinor())
                    .number("livePayments", r.livePayments())
                    .bool("final", r.dayFinal())
                    .field("source", r.source())
                    .number("finalTotal", r.finalMinor())
                    .end();
        }
        return json.endArray().end().toString();
    }
}
